/**
 * A hostile service never runs script in the inbox's origin (docs/inbox-api.md §1, §6): a real Chromium,
 * signed in, opens proxied URLs a service answers with documents, SVG, script and sniffable bytes
 * (tests/support/hostile-service.ts), and the inbox's own `/api` errors, live events and webhook
 * receiver. Nothing runs, no beacon arrives, and every answer is inert data. The pages may connect to
 * their own origin and the storage's only.
 */
import { test as base, expect } from '@playwright/test';
import { rmSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack } from '../src/cli/stack/stack';
import { startFlakyFront, type FlakyFront } from './support/flaky-front';
import { announceConversations, PWNED, RELAYED, serveHostileAnswers } from './support/hostile-service';
import { InboxClient } from './support/inbox-client';
import { ADMIN } from './support/inbox-e2e';
import { seedPgliteDataDir } from './support/pglite-template';

interface Beacon {
	url: string;
	hits: string[];
	close(): Promise<void>;
}

/** A local listener the hostile bodies call back: any request here is script that ran. */
async function startBeacon(): Promise<Beacon> {
	const hits: string[] = [];
	const server = createServer((request, response) => {
		hits.push(request.url ?? '');
		response.writeHead(204, { 'access-control-allow-origin': '*' });
		response.end();
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		hits,
		close: () => new Promise((resolve) => server.close(() => resolve()))
	};
}

interface HostileStack {
	stack: Stack;
	front: FlakyFront;
	beacon: Beacon;
	ids: string[];
}

const test = base.extend<object, { hostile: HostileStack }>({
	hostile: [
		// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture needs from this pattern
		async ({}, use) => {
			const beacon = await startBeacon();
			const dataDir = mkdtempSync(join(tmpdir(), 'inbox-hostile-e2e-'));
			let front: FlakyFront | undefined;
			const stack = await startStack({
				dataDir,
				accounts: [ADMIN],
				prepare: () => seedPgliteDataDir(dataDir),
				serviceBaseUrl: async (simUrl) => {
					front = await startFlakyFront(simUrl);
					return front.url;
				}
			});
			const ids = Object.keys(serveHostileAnswers(front!, beacon.url));
			const admin = await InboxClient.loggedIn(stack.inbox.url, ADMIN.username, ADMIN.password);
			await announceConversations(stack, ids, async (id) => (await admin.get(`/api/conversations/${id}`)).status === 200);
			await use({ stack, front: front!, beacon, ids });
			await stack.stop();
			await front!.close();
			await beacon.close();
			rmSync(dataDir, { recursive: true, force: true });
		},
		{ scope: 'worker', timeout: 300_000 }
	],
	baseURL: async ({ hostile }, use) => use(hostile.stack.inbox.url)
});

const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox";

function expectInertData(what: string, headers: Record<string, string>): void {
	expect([what, headers['content-type']]).toEqual([what, 'application/json; charset=utf-8']);
	expect([what, headers['content-security-policy']]).toEqual([what, DATA_POLICY]);
	expect([what, headers['x-content-type-options']]).toEqual([what, 'nosniff']);
	expect([what, headers['cache-control']]).toEqual([what, 'no-store']);
}

test('a signed-in browser opening what a hostile service answered runs none of it', async ({ page, hostile, baseURL }) => {
	const signedIn = await page.request.post('/api/session', {
		data: { username: ADMIN.username, password: ADMIN.password },
		headers: { origin: baseURL! }
	});
	expect(signedIn.status()).toBe(200);
	for (const id of hostile.ids) {
		const path = `/api/v1/conversations/${id}`;
		const response = await page.goto(path);
		expect([path, response?.status()]).toEqual([path, id === RELAYED ? 200 : 502]);
		expectInertData(path, response!.headers());
		const body = await response!.json();
		if (id === RELAYED) expect(body.conversationId).toBe(RELAYED);
		else expect(body.error.code).toBe('INVALID_RESPONSE');
		expect([path, await page.title()]).not.toEqual([path, PWNED]);
		expect([path, await page.evaluate(() => window.name)]).not.toEqual([path, PWNED]);
	}
	// every hostile answer did reach the inbox (so it was refused, not missed)
	expect(new Set(hostile.front.seen.filter((seen) => seen.outcome === 'canned').map((seen) => seen.path))).toEqual(
		new Set(hostile.ids.map((id) => `/v1/conversations/${id}`))
	);
	await page.waitForTimeout(500);
	expect(hostile.beacon.hits).toEqual([]);
});

test("the inbox's own /api errors, live events and webhook receiver are inert data too", async ({ page, hostile, baseURL }) => {
	const reflected = '/api/%3Csvg%20onload=alert(1)%3E';
	for (const [path, status] of [
		['/api/v1/conversations', 401],
		['/api/nothing-here', 404],
		[reflected, 404],
		['/api/events', 401],
		['/webhooks/service', 405]
	] as const) {
		const response = await page.goto(path);
		expect([path, response?.status()]).toEqual([path, status]);
		expectInertData(path, response!.headers());
	}
	// answered by the hook itself, before any route runs
	const crossSite = await page.request.post('/api/session', { data: {}, headers: { origin: 'https://evil.example' } });
	expect([crossSite.status(), (await crossSite.json()).error.code]).toEqual([403, 'ORIGIN_REJECTED']);
	expectInertData('ORIGIN_REJECTED', crossSite.headers());

	// the live event stream of a signed-in agent
	const signedIn = await page.request.post('/api/session', {
		data: { username: ADMIN.username, password: ADMIN.password },
		headers: { origin: baseURL! }
	});
	expect(signedIn.status()).toBe(200);
	const cookie = (await page.context().cookies()).map((item) => `${item.name}=${item.value}`).join('; ');
	const stop = new AbortController();
	const stream = await fetch(`${hostile.stack.inbox.url}/api/events`, { headers: { cookie }, signal: stop.signal });
	expect([stream.status, stream.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
	expect(stream.headers.get('content-security-policy')).toBe(DATA_POLICY);
	expect(stream.headers.get('x-content-type-options')).toBe('nosniff');
	expect(stream.headers.get('cache-control')).toBe('no-store');
	stop.abort();
	expect(hostile.beacon.hits).toEqual([]);
});

test("the pages connect to their own origin and the storage's, nowhere else", async ({ page, hostile }) => {
	const response = await page.goto('/login');
	const policy = response!.headers()['content-security-policy'];
	const connect = policy
		.split(';')
		.map((directive) => directive.trim())
		.filter((directive) => directive.startsWith('connect-src'));
	expect(connect).toEqual([`connect-src 'self' blob: ${new URL(hostile.stack.simUrl).origin}`]);
	expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval' 'sha256-");
	const attempt = await page.evaluate(
		(beacon) =>
			fetch(`${beacon}/from-the-page`, { mode: 'no-cors' }).then(
				() => 'sent',
				() => 'blocked'
			),
		hostile.beacon.url
	);
	expect(attempt).toBe('blocked');
	expect(hostile.beacon.hits).toEqual([]);
});
