/**
 * A simulator started in the test's process with one registered company and its key files, for the
 * server specs that drive a module against the real service (docs/simulator.md "Running it"); and the
 * service's events of a conversation applied to an inbox's database, as the webhook processor would (the
 * company's webhook URL answers nothing in these specs).
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/cli/stack/ports';
import { ensureCompanyKeys, registerCompany, type CompanyCredentials } from '../../src/cli/stack/stack';
import { afterAll, beforeAll } from 'vitest';
import { initCrypto, parseKeyFile } from '../../src/lib/crypto/index';
import type { Database } from '../../src/lib/server/db/database';
import { loadCompanyKeys, type CompanyKeys } from '../../src/lib/server/keys/files';
import { applyEvents } from '../../src/lib/server/webhooks/handlers';
import type { ConversationServices } from '../../src/lib/server/conversations/rewrap';
import type { Logger } from '../../src/lib/server/log';
import { UpstreamClient } from '../../src/lib/server/upstream/client';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import { startFlakyFront, type FlakyFront } from './flaky-front';
import { quietLogger } from './loggers';

export interface SimCompany {
	sim: RunningSimulator;
	company: CompanyCredentials;
	/** The company's `signing.key` (64 bytes), as the admin's page holds it. */
	signingKey: Uint8Array;
	/** The company's key files as the inbox loads them (the current pair the simulator seals to). */
	companyKeys: CompanyKeys;
}

export async function startSimCompany(): Promise<SimCompany> {
	const sim = await startSimulator();
	const dataDir = await mkdtemp(join(tmpdir(), 'sim-company-'));
	await ensureCompanyKeys(dataDir);
	const company = await registerCompany(sim.url, dataDir, `http://127.0.0.1:${await freePort()}/webhooks/service`);
	const signingKey = parseKeyFile(await readFile(join(dataDir, 'keys', 'signing.key'), 'utf8'), 64, 'signing.key');
	return { sim, company, signingKey, companyKeys: await loadCompanyKeys(join(dataDir, 'keys')) };
}

/** The file's simulator and company, and a flaky front before it (for the service's odd answers). */
export interface RunningSimCompany extends SimCompany {
	front: FlakyFront;
}

/** Registers beforeAll/afterAll that start and stop the file's simulator, company and front; filled in by beforeAll. */
export function useSimCompany(): RunningSimCompany {
	const running = {} as RunningSimCompany;
	beforeAll(async () => {
		await initCrypto();
		Object.assign(running, await startSimCompany());
		running.front = await startFlakyFront(running.sim.url);
	}, 60_000);
	afterAll(async () => {
		await running.front?.close();
		await running.sim?.close();
	});
	return running;
}

/**
 * Applies the latest event of `eventType` the simulator made for `conversationId` (`GET /_sim/deliveries`)
 * to the inbox's database, through the webhook handlers; what they would wake afterwards is not run.
 */
export async function applyLatestEvent(
	sim: RunningSimulator,
	companyId: string,
	db: Database,
	conversationId: string,
	now: Date,
	eventType = 'conversation.started'
) {
	const query = new URLSearchParams({ companyId, eventType, conversationId });
	const answer = await fetch(`${sim.url}/_sim/deliveries?${query}`);
	const { data } = (await answer.json()) as { data: { body: string; event: { id: string } }[] };
	const latest = data.at(-1);
	if (!latest) throw new Error(`the simulator made no ${eventType} of ${conversationId}`);
	const context = { now, log: quietLogger, live() {}, afterCommit() {}, wakeRewraps() {}, conversationStarted() {} };
	await db.transaction((tx) => applyEvents(tx, [{ eventId: latest.event.id, rawBody: latest.body, requestId: null }], context));
}

/** Applies the latest `conversation.started` of `conversationId` (a start, or a new device's). */
export const applyLatestStart = (sim: RunningSimulator, companyId: string, db: Database, conversationId: string, now: Date) =>
	applyLatestEvent(sim, companyId, db, conversationId, now);

/**
 * What the server's conversation flows need (rewraps, invitations, away replies), talking to `serviceUrl`
 * (the simulator or its front) as the company, without waits between retries, on the test's clock.
 */
export function conversationServices(
	company: SimCompany,
	db: Database,
	serviceUrl: string,
	now: () => number,
	log: Logger
): ConversationServices {
	const upstream = new UpstreamClient({
		baseUrl: serviceUrl,
		apiKey: company.company.apiKey,
		signingSecret: company.company.webhookSecret,
		db,
		sleep: async () => {}
	});
	return { db, upstream, companyKeys: async () => company.companyKeys, now, log };
}
