import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signedRoster, signingKeyOf } from '$test-support/admin-api';
import { Customer } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { startFlakyFront, type FlakyFront } from '$test-support/flaky-front';
import { announceConversations, RELAYED, serveHostileAnswers } from '$test-support/hostile-service';
import type { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { rawRequest } from '$test-support/raw-request';
import { companyReplies } from '$test-support/replies';
import { initCrypto } from '../../crypto/index';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

describe.each(BACKENDS)('the signing proxy /api/v1 on %s (docs/inbox-api.md §6, contract 5.1)', (backend) => {
	let front: FlakyFront;
	const harness = useStack(backend, {
		serviceBaseUrl: async (simUrl) => {
			front = await startFlakyFront(simUrl);
			return front.url;
		}
	});
	afterAll(() => front?.close());

	let agent: InboxClient;
	let admin: InboxClient;
	let customer: Customer;

	beforeAll(async () => {
		await initCrypto();
		agent = await harness.loginInRoster();
		admin = await harness.login(ADMIN);
		const invited = await agent.post('/api/invites', {});
		customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		await customer.say('Is my order on its way?');
		// the simulator has sent the conversation's start: the agent may act on it once the inbox has stored its wraps
		const id = customer.conversationId;
		await vi.waitFor(async () => expect((await agent.get(`/api/v1/conversations/${id}`)).status).toBe(200), {
			timeout: 20_000,
			interval: 50
		});
	}, 60_000);

	it('forwards an agent’s conversation work, and for nobody invitations, rosters, agent wraps, rewraps or deliveries', async () => {
		const id = customer.conversationId;
		expect((await agent.get('/api/v1/conversations?status=active&limit=5')).status).toBe(200);
		expect((await agent.get(`/api/v1/conversations/${id}`)).body).toMatchObject({ conversationId: id, status: 'active' });
		expect((await agent.get(`/api/v1/conversations/${id}/messages?limit=10`)).body.data).toHaveLength(1);
		for (const client of [agent, admin]) {
			for (const [method, path] of [
				['GET', '/api/v1/roster'],
				['POST', '/api/v1/roster'],
				['POST', '/api/v1/invites'],
				['POST', `/api/v1/conversations/${id}/reinvite`],
				['GET', `/api/v1/conversations/${id}/agent-wraps`],
				['POST', `/api/v1/conversations/${id}/agent-wraps`],
				['POST', `/api/v1/conversations/${id}/rewrap`],
				['GET', '/api/v1/deliveries'],
				['POST', '/api/v1/deliveries/dlv_abcdefgh/retry'],
				['DELETE', `/api/v1/conversations/${id}`]
			]) {
				const refused = await client.request(method, path, method === 'POST' ? {} : undefined);
				expect([path, refused.status, refused.body.error.code]).toEqual([path, 403, 'ROUTE_NOT_ALLOWED']);
			}
		}
	});

	it('refuses path tricks, unknown or repeated query parameters, and never forwards them', async () => {
		const before = front.seen.length;
		const headers = { cookie: agent.cookie! };
		for (const path of [
			'/api/v1//conversations',
			'/api/v1/conversations/..%2Froster',
			'/api/v1/conversations/%2e%2e%2froster',
			'/api/v1/http://evil.example/v1/conversations',
			'/api/v1/conversations/a%00b'
		]) {
			const answer = await rawRequest(harness.stack().inbox.url, 'GET', path, headers);
			expect([path, answer.status, JSON.parse(answer.body).error.code]).toEqual([path, 400, 'INVALID_PATH']);
		}
		// Dot segments are resolved by the URL parser before routing: what is left must pass the allowlist.
		const dotted = await rawRequest(harness.stack().inbox.url, 'GET', '/api/v1/conversations/../roster', headers);
		expect([dotted.status, JSON.parse(dotted.body).error.code]).toEqual([403, 'ROUTE_NOT_ALLOWED']);
		expect((await agent.get('/api/v1/conversations?status=active&status=closed')).body.error.code).toBe('INVALID_REQUEST');
		expect((await agent.get('/api/v1/conversations?debug=1')).body.error.code).toBe('INVALID_REQUEST');
		expect(front.seen.length).toBe(before);
	});

	it('needs a session and the server origin', async () => {
		const anonymous = await fetch(`${harness.stack().inbox.url}/api/v1/conversations`);
		expect(anonymous.status).toBe(401);
		const crossSite = await agent.post(`/api/v1/conversations/${customer.conversationId}/typing`, {}, { origin: 'https://evil.example' });
		expect([crossSite.status, crossSite.body.error.code]).toEqual([403, 'ORIGIN_REJECTED']);
	});

	it("sends only its own headers, signed over the exact bytes, and returns none of the service's credentials", async () => {
		const body = '{ "upToMessageId" :"x" }';
		const answer = await agent.request('POST', `/api/v1/conversations/${customer.conversationId}/typing`, body, {
			authorization: 'Bearer sk_live_stolen',
			'x-service-signature': 't=1,v1=00',
			'x-forwarded-for': '6.6.6.6',
			'x-evil': 'yes',
			'idempotency-key': 'typing-headers-1'
		});
		expect(answer.status).toBe(200);
		const seen = front.seen.at(-1)!;
		expect(seen.body).toBe(body);
		expect(seen.headers.authorization).toBe(`Bearer ${harness.stack().company.apiKey}`);
		expect(seen.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
		expect(seen.headers['idempotency-key']).toBe('typing-headers-1');
		for (const name of ['cookie', 'x-evil', 'x-forwarded-for', 'origin']) expect(seen.headers[name]).toBeUndefined();
		const returned = [...answer.headers.keys()];
		expect(returned).not.toContain('authorization');
		expect(returned).not.toContain('x-service-signature');
		expect(JSON.stringify([...answer.headers.values()])).not.toContain(harness.stack().company.apiKey);
	});

	it('retries a failing service with the same Idempotency-Key; a repeated request is replayed, not repeated', async () => {
		const path = `/api/v1/conversations/${customer.conversationId}/typing`;
		const before = front.seen.length;
		front.failNext(1, { status: 503 });
		front.failNext(1, 'cut');
		const first = await agent.post(path, {}, { 'idempotency-key': 'typing-retry-1' });
		expect(first.status).toBe(200);
		const attempts = front.seen.slice(before);
		expect(attempts.map((seen) => seen.outcome)).toEqual(['status', 'cut', 'forwarded']);
		expect(new Set(attempts.map((seen) => seen.headers['idempotency-key']))).toEqual(new Set(['typing-retry-1']));
		const again = await agent.post(path, {}, { 'idempotency-key': 'typing-retry-1' });
		expect(again.status).toBe(200);
		expect(again.headers.get('idempotent-replayed')).toBe('true');
		expect(again.body).toEqual(first.body);

		const made = await agent.post(path, {});
		expect(made.headers.get('idempotency-key')).toMatch(/^prx_[A-Za-z0-9_-]{24}$/);
		expect(front.seen.at(-1)!.headers['idempotency-key']).toBe(made.headers.get('idempotency-key'));

		front.failNext(3, { status: 502 });
		const down = await agent.post(path, {});
		expect([down.status, down.body.error.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
		expect((await agent.post(path, {}, { 'idempotency-key': 'é' })).body.error.code).toBe('INVALID_IDEMPOTENCY_KEY');
	});

	it('refuses oversized and non-JSON bodies before the service sees them', async () => {
		const before = front.seen.length;
		const typing = `/api/v1/conversations/${customer.conversationId}/typing`;
		const big = await agent.post(typing, { pad: 'x'.repeat(5000) });
		expect([big.status, big.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
		const huge = await agent.post('/api/v1/messages', { pad: 'x'.repeat(200_000) });
		expect(huge.status).toBe(413);
		expect((await agent.post(typing, '[1,2]')).body.error.code).toBe('INVALID_REQUEST');
		expect((await agent.post(typing, '{}', { 'content-type': 'text/plain' })).body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
		expect(front.seen.length).toBe(before);
	});

	it("carries an agent's reply to the customer, keeps the inbox's copy, and moves the agent's read pointer", async () => {
		const id = customer.conversationId;
		// The test plays the agent's worker: it opens K (with the company keys of the test stack) and encrypts.
		const reply = await companyReplies(agent, harness.stack().dataDir, id);
		const sent = await agent.post('/api/v1/messages', reply('Yes, it ships today.'));
		expect(sent.status).toBe(201);
		expect((await customer.messages()).map((message) => [message.senderType, message.text])).toEqual([
			['user', 'Is my order on its way?'],
			['company', 'Yes, it ships today.']
		]);
		const stored = await agent.get(`/api/conversations/${id}/messages`);
		expect(stored.body.data.map((message: { senderType: string }) => message.senderType)).toEqual(['user', 'company']);

		expect((await agent.get(`/api/conversations/${id}`)).body.unreadCount).toBe(1);
		const userMessage = stored.body.data[0].messageId;
		expect((await agent.post(`/api/v1/conversations/${id}/read`, { upToMessageId: userMessage })).status).toBe(200);
		expect((await agent.get(`/api/conversations/${id}`)).body.unreadCount).toBe(0);
		expect((await admin.get(`/api/conversations/${id}`)).body.unreadCount).toBe(1);
	});

	it("records who sent each reply, and refuses another account's clientMessageId before the service sees it", async () => {
		const id = customer.conversationId;
		const reply = await companyReplies(agent, harness.stack().dataDir, id);
		const fromAda = reply('From Ada.');
		const fromGrace = reply('From Grace.');
		expect((await agent.post('/api/v1/messages', fromAda)).status).toBe(201);
		expect((await admin.post('/api/v1/messages', fromGrace)).status).toBe(201);
		const before = front.seen.length;
		const passedOff = await admin.post('/api/v1/messages', reply('Grace as Ada.', fromAda.encryption.clientMessageId));
		expect([passedOff.status, passedOff.body.error.code]).toEqual([409, 'STATE_CONFLICT']);
		expect(front.seen.length).toBe(before);

		const asked = [fromAda, fromGrace, reply('never sent')].map(({ encryption }) => ({
			conversationId: id,
			clientMessageId: encryption.clientMessageId
		}));
		const authors = await admin.post('/api/message-authors', { messages: asked });
		expect(authors.body.data.map((author: { origin: string; displayName?: string }) => [author.origin, author.displayName])).toEqual([
			['agent', 'Ada Agent'],
			['agent', 'Grace Admin'],
			['outside', undefined]
		]);
		for (const bad of [{}, { messages: [{ conversationId: id }] }, { messages: Array(201).fill(asked[0]) }]) {
			expect((await agent.post('/api/message-authors', bad)).body.error.code).toBe('INVALID_REQUEST');
		}
		expect((await fetch(`${harness.stack().inbox.url}/api/message-authors`, { method: 'POST' })).status).toBe(403);
	});

	it('returns presigned storage URLs as the service made them', async () => {
		const upload = await agent.post(`/api/v1/conversations/${customer.conversationId}/attachments`, { size: 1000 });
		expect(upload.status).toBe(201);
		expect(upload.body.uploadUrl.startsWith(`${harness.stack().simUrl}/_storage/upload/`)).toBe(true);
		expect(upload.body.headers).toEqual({ 'content-type': 'application/octet-stream', 'x-amz-tagging': 'state=pending' });
	});

	it("relays only JSON: every other answer of the service is 502 INVALID_RESPONSE, under the inbox's own headers", async () => {
		const answers = serveHostileAnswers(front, 'http://127.0.0.1:9');
		await announceConversations(
			harness.stack(),
			[...Object.keys(answers), 'hostile_post'],
			async (id) => (await admin.get(`/api/conversations/${id}`)).status === 200
		);
		const dataHeaders = {
			'content-type': 'application/json; charset=utf-8',
			'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
			'x-content-type-options': 'nosniff',
			'cache-control': 'no-store'
		};
		for (const id of Object.keys(answers).filter((id) => id !== RELAYED)) {
			const answer = await rawRequest(harness.stack().inbox.url, 'GET', `/api/v1/conversations/${id}`, { cookie: admin.cookie! });
			expect([id, answer.status, JSON.parse(answer.body).error.code]).toEqual([id, 502, 'INVALID_RESPONSE']);
			expect(answer.headers).toMatchObject(dataHeaders);
			expect(answer.body).not.toContain('<');
		}
		// refused also where the proxy records effects (a POST), and the service's error bodies too
		front.answerPath(`/v1/conversations/hostile_post/typing`, answers.hostile_html);
		const posted = await admin.post('/api/v1/conversations/hostile_post/typing', {});
		expect([posted.status, posted.body.error.code]).toEqual([502, 'INVALID_RESPONSE']);

		const relayed = await rawRequest(harness.stack().inbox.url, 'GET', `/api/v1/conversations/${RELAYED}`, { cookie: admin.cookie! });
		expect(relayed.status).toBe(200);
		expect(relayed.headers).toMatchObject(dataHeaders);
		expect(JSON.parse(relayed.body)).toEqual(JSON.parse(answers[RELAYED].body as string));
		// serialized again by the inbox: the service's own bytes (here, its indentation) do not come through
		expect(relayed.body).toBe(JSON.stringify(JSON.parse(answers[RELAYED].body as string)));
	});

	it('refuses a roster whose version is not the latest + 1 itself, before sending anything to the service', async () => {
		const signingKey = await signingKeyOf(harness.stack());
		const { companyId } = harness.stack().company;
		const { next, latest } = (await admin.get('/api/admin/roster')).body;
		const version = next.rosterVersion;
		const agents = latest.agents.map(({ agentKeyId, publicKey }: { agentKeyId: string; publicKey: string }) => ({ agentKeyId, publicKey }));
		const rosterUploads = () => front.seen.filter((seen) => seen.method === 'POST' && seen.path === '/v1/roster').length;
		expect((await admin.post('/api/admin/roster', signedRoster(companyId, version, agents, signingKey))).status).toBe(201);
		const uploads = rosterUploads();
		// The same version again, freshly signed: the simulator would refuse it too, so watch what the inbox sends.
		for (const stale of [version, version - 1, version + 2].filter((v) => v >= 1)) {
			const refused = await admin.post('/api/admin/roster', signedRoster(companyId, stale, agents, signingKey));
			expect([refused.status, refused.body.error.code], String(stale)).toEqual([409, 'ROSTER_VERSION_CONFLICT']);
		}
		expect(rosterUploads()).toBe(uploads);
	});
});
