import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteTemplate } from '$test-support/databases';
import { startFlakyFront, type FlakyFront } from '$test-support/flaky-front';
import { freePort } from '../../../cli/stack/ports';
import { ensureCompanyKeys, registerCompany, type CompanyCredentials } from '../../../cli/stack/stack';
import { startSimulator, type RunningSimulator } from '../../../sim/server';
import { ContractError } from '../../errors';
import { v1 } from '../../wire/v1';
import type { Database } from '../db/database';
import { loadOrCreateOperation } from '../db/operations';
import { openPglite } from '../db/pglite';
import type { LogFields, Logger } from '../log';
import { registry } from '../metrics';
import { inRequest } from '../request-context';
import { UpstreamClient, type RetryPolicy } from './client';

let sim: RunningSimulator;
let front: FlakyFront;
let company: CompanyCredentials;
let db: Database;
const sleeps: number[] = [];
const quick: RetryPolicy = { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000, attemptTimeoutMs: 5000 };

function client(baseUrl = front.url): UpstreamClient {
	return new UpstreamClient({
		baseUrl,
		apiKey: company.apiKey,
		signingSecret: company.webhookSecret,
		db,
		sleep: async (ms) => {
			sleeps.push(ms);
		}
	});
}

async function failure(run: () => Promise<unknown>): Promise<ContractError> {
	try {
		await run();
	} catch (error) {
		expect(error).toBeInstanceOf(ContractError);
		return error as ContractError;
	}
	throw new Error('expected a failure');
}

beforeAll(async () => {
	sim = await startSimulator();
	front = await startFlakyFront(sim.url);
	const dataDir = await mkdtemp(join(tmpdir(), 'upstream-'));
	await ensureCompanyKeys(dataDir);
	company = await registerCompany(sim.url, dataDir, `http://127.0.0.1:${await freePort()}/webhooks/service`);
	db = await openPglite('memory://', { loadDataDir: await pgliteTemplate() });
}, 60_000);

afterAll(async () => {
	await db?.close();
	await front?.close();
	await sim?.close();
});

describe('upstream client against the simulator (contract 5.1)', () => {
	it('signs requests the service accepts, and parses its answers', async () => {
		const invite = await client().call(v1.createInvite({ expiresIn: 3600 }), { idempotencyKey: 'test-invite-1' });
		expect(invite.status).toBe(201);
		expect(invite.value.conversationId).toMatch(/^conv_/);
		const listed = await client().call(v1.listConversations({ status: 'pending', limit: 10 }));
		expect(listed.value.data.map((conversation) => conversation.conversationId)).toContain(invite.value.conversationId);
		const seen = front.seen.at(-1)!;
		expect(seen.headers.authorization).toBe(`Bearer ${company.apiKey}`);
		expect(seen.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
		expect(seen.headers['content-type']).toBeUndefined();
	});

	it('maps every error answer to a ContractError with status and code', async () => {
		expect(await failure(() => client().call(v1.getConversation('conv_nothere')))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
		const wrongKey = new UpstreamClient({ baseUrl: sim.url, apiKey: company.apiKey, signingSecret: `whsec_${'A'.repeat(43)}`, db });
		expect(await failure(() => wrongKey.call(v1.listConversations()))).toMatchObject({ code: 'INVALID_SIGNATURE', status: 401 });
		const invite = await client().call(v1.createInvite(), { idempotencyKey: 'test-invite-2' });
		expect(
			await failure(() => client().call(v1.reinvite(invite.value.conversationId), { idempotencyKey: 'test-reinvite-2' }))
		).toMatchObject({
			code: 'CONVERSATION_PENDING',
			status: 409
		});
	});

	it('a logical operation keeps its key and exact body: a second attempt is a replay, not a second invitation', async () => {
		const first = await client().perform('invite:logical-1', v1.createInvite({ expiresIn: 600 }));
		// The operation is asked again with other content (as a restarted process would rebuild it): the stored request wins.
		const again = await client().perform('invite:logical-1', v1.createInvite({ expiresIn: 900 }));
		expect(again.value.inviteId).toBe(first.value.inviteId);
		expect(again.replayed).toBe(true);
		const sent = front.seen.filter((seen) => seen.path === '/v1/invites').slice(-2);
		expect(sent[0].headers['idempotency-key']).toBe(sent[1].headers['idempotency-key']);
		expect(sent[1].body).toBe('{"expiresIn":600}');
	});

	it('after a crash between storing the operation and sending it, the retry uses the stored key', async () => {
		const stored = await loadOrCreateOperation(
			db,
			{ operationKey: 'invite:crashed', method: 'POST', pathAndQuery: '/v1/invites', body: '{"expiresIn":7200}' },
			new Date()
		);
		const result = await client().perform('invite:crashed', v1.createInvite());
		expect(result.replayed).toBe(false);
		expect(front.seen.at(-1)?.headers['idempotency-key']).toBe(stored.idempotencyKey);
		expect(front.seen.at(-1)?.body).toBe('{"expiresIn":7200}');
	});

	it('retries 5xx and cut connections with backoff, resending the same key and body with a fresh signature', async () => {
		sleeps.length = 0;
		const before = front.seen.length;
		front.failNext(1, { status: 503 });
		front.failNext(1, 'cut');
		const result = await client().call(v1.createInvite({ expiresIn: 120 }), { idempotencyKey: 'test-retry-1', policy: quick });
		expect(result.status).toBe(201);
		const attempts = front.seen.slice(before);
		expect(attempts.map((seen) => seen.outcome)).toEqual(['status', 'cut', 'forwarded']);
		expect(new Set(attempts.map((seen) => seen.headers['idempotency-key']))).toEqual(new Set(['test-retry-1']));
		expect(new Set(attempts.map((seen) => seen.body))).toEqual(new Set(['{"expiresIn":120}']));
		expect(sleeps).toHaveLength(2);
		expect(sleeps[0]).toBeLessThanOrEqual(100);
		expect(sleeps[1]).toBeLessThanOrEqual(200);
	});

	it('honours a short Retry-After on 429, and returns a long one to the caller', async () => {
		sleeps.length = 0;
		front.failNext(1, { status: 429, retryAfter: 1 });
		expect((await client().call(v1.listConversations(), { policy: quick })).status).toBe(200);
		expect(sleeps).toEqual([1000]);
		front.failNext(1, { status: 429, retryAfter: 60 });
		expect(await failure(() => client().call(v1.listConversations(), { policy: quick }))).toMatchObject({
			code: 'RATE_LIMITED',
			status: 429
		});
	});

	it('gives up after the last attempt: the last 5xx, or UPSTREAM_UNAVAILABLE when nothing answered', async () => {
		front.failNext(3, { status: 502 });
		expect(await failure(() => client().call(v1.listConversations(), { policy: quick }))).toMatchObject({ status: 502 });
		const nobody = client(`http://127.0.0.1:${await freePort()}`);
		expect(await failure(() => nobody.call(v1.listConversations(), { policy: quick }))).toMatchObject({
			code: 'UPSTREAM_UNAVAILABLE',
			status: 503
		});
	});

	it("carries the id of the inbox's request as X-Request-Id, and logs each request's outcome without its query", async () => {
		const lines: [string, string, LogFields | undefined][] = [];
		const log: Logger = {
			info: (message, fields) => lines.push(['info', message, fields]),
			warn: (message, fields) => lines.push(['warn', message, fields]),
			error: (message, fields) => lines.push(['error', message, fields])
		};
		const logged = new UpstreamClient({ baseUrl: front.url, apiKey: company.apiKey, signingSecret: company.webhookSecret, db, log });
		await inRequest({ requestId: 'req_upstream_1' }, () => logged.call(v1.listConversations({ status: 'pending', limit: 3 })));
		expect(front.seen.at(-1)!.headers['x-request-id']).toBe('req_upstream_1');
		await logged.call(v1.listConversations());
		expect(front.seen.at(-1)!.headers['x-request-id']).toBeUndefined();
		front.failNext(3, { status: 502 });
		await failure(() => logged.call(v1.listConversations(), { policy: quick }));
		const unreachable = new UpstreamClient({
			baseUrl: `http://127.0.0.1:${await freePort()}`,
			apiKey: company.apiKey,
			signingSecret: company.webhookSecret,
			db,
			log,
			sleep: async () => {}
		});
		await failure(() => unreachable.call(v1.listConversations(), { policy: quick }));
		expect(lines.map(([level, message, fields]) => [level, message, { ...fields, ms: typeof fields?.ms }])).toEqual([
			['info', 'service answered', { method: 'GET', path: '/v1/conversations', status: 200, attempts: 1, ms: 'number' }],
			['info', 'service answered', { method: 'GET', path: '/v1/conversations', status: 200, attempts: 1, ms: 'number' }],
			['info', 'service answered', { method: 'GET', path: '/v1/conversations', status: 502, attempts: 3, ms: 'number' }],
			// each call at info; the start of an outage is the one warning
			['warn', 'the service cannot be reached', { statusClass: '5xx', reason: null, ms: 'undefined' }],
			['info', 'service unreachable', { method: 'GET', path: '/v1/conversations', attempts: 3, ms: 'number', reason: 'ECONNREFUSED' }],
			['warn', 'the service cannot be reached', { statusClass: 'network', reason: 'ECONNREFUSED', ms: 'undefined' }]
		]);
	});

	it('refuses to send a POST without an Idempotency-Key', async () => {
		expect(await failure(() => client().call(v1.createInvite()))).toMatchObject({ code: 'IDEMPOTENCY_KEY_REQUIRED' });
	});
});

describe('an outage of the service (docs/operations.md "Logs", "Metrics")', () => {
	it('logs the first failure after a success once, with its status class, and the recovery once; the state feeds the metrics and the pages', async () => {
		const logged: { level: string; message: string; fields: Record<string, unknown> }[] = [];
		const log = {
			info: (message: string, fields = {}) => logged.push({ level: 'info', message, fields }),
			warn: (message: string, fields = {}) => logged.push({ level: 'warn', message, fields }),
			error: (message: string, fields = {}) => logged.push({ level: 'error', message, fields })
		};
		// the lines about the outage, beside the line each call logs
		const lines = () => logged.filter(({ message }) => message.startsWith('the service'));
		const told: boolean[] = [];
		const upstream = new UpstreamClient({
			baseUrl: front.url,
			apiKey: company.apiKey,
			signingSecret: company.webhookSecret,
			db,
			log,
			onReachability: (reachable) => told.push(reachable),
			sleep: async () => {}
		});
		const up = async () => (await registry.getSingleMetric('inbox_upstream_up')!.get()).values[0].value;
		expect((await upstream.send({ method: 'GET', pathAndQuery: '/v1/conversations' }, quick)).status).toBe(200);
		expect([upstream.reachable, lines()]).toEqual([true, []]);

		front.failNext(2 * quick.attempts, { status: 503 });
		for (let i = 0; i < 2; i++) expect((await upstream.send({ method: 'GET', pathAndQuery: '/v1/conversations' }, quick)).status).toBe(503);
		expect(upstream.reachable).toBe(false);
		expect(await up()).toBe(0);
		expect(lines()).toEqual([{ level: 'warn', message: 'the service cannot be reached', fields: { statusClass: '5xx', reason: null } }]);

		expect((await upstream.send({ method: 'GET', pathAndQuery: '/v1/conversations' }, quick)).status).toBe(200);
		expect([upstream.reachable, await up()]).toEqual([true, 1]);
		expect(lines().map(({ level, message }) => [level, message])).toEqual([
			['warn', 'the service cannot be reached'],
			['info', 'the service answers again']
		]);
		expect(told).toEqual([false, true]);
		// an answer the service gives (a 404 here) is the service answering
		expect((await upstream.send({ method: 'GET', pathAndQuery: '/v1/conversations/conv_nothing00' }, quick)).status).toBe(404);
		expect(lines()).toHaveLength(2);
	});
});
