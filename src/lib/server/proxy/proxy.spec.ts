import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Customer } from '$test-support/customer';
import { useDatabases } from '$test-support/databases';
import { startSimCompany } from '$test-support/sim-company';
import { startFlakyFront, type FlakyFront } from '$test-support/flaky-front';
import type { CompanyCredentials } from '../../../cli/stack/stack';
import type { RunningSimulator } from '../../../sim/server';
import { ContractError } from '../../errors';
import { encryptMessage, initCrypto } from '../../crypto/index';
import { v1 } from '../../wire/v1';
import type { Session } from '../auth/sessions';
import { createAccount } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import type { Database } from '../db/database';
import { liveEventsAfter } from '../db/live-events';
import { listStoredMessages } from '../db/messages';
import type { Inbox } from '../inbox';
import type { Logger } from '../log';
import { INTERACTIVE_RETRY, UpstreamClient } from '../upstream/client';
import { proxyRequest } from './proxy';

describe('the signing proxy in process (docs/inbox-api.md §6)', () => {
	const databases = useDatabases('PGlite');
	let sim: RunningSimulator;
	let front: FlakyFront;
	let company: CompanyCredentials;
	let db: Database;
	let inbox: Inbox;
	let session: Session;

	beforeAll(async () => {
		await initCrypto();
		({ sim, company } = await startSimCompany());
		front = await startFlakyFront(sim.url);
		db = await databases.open();
		const quiet: Logger = { info() {}, warn() {}, error() {} };
		const upstream = new UpstreamClient({
			baseUrl: front.url,
			apiKey: company.apiKey,
			signingSecret: company.webhookSecret,
			db,
			sleep: async () => {}
		});
		inbox = { db, upstream, log: quiet, now: Date.now } as unknown as Inbox;
		const account = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'agent', passwordHash: 'h' }, new Date());
		session = { account, expiresAt: new Date(Date.now() + 3600_000), tokenHash: 'hash' };
	}, 60_000);
	afterAll(async () => {
		await front?.close();
		await sim?.close();
	});

	function call(method: string, rest: string, init: { body?: string; headers?: Record<string, string>; search?: string } = {}) {
		const request = new Request(`http://inbox.test/api/v1/${rest}${init.search ?? ''}`, { method, body: init.body, headers: init.headers });
		return proxyRequest(inbox, session, request, rest, new URLSearchParams(init.search ?? ''));
	}

	async function refusal(promise: Promise<unknown>) {
		const error = await promise.then(
			() => undefined,
			(caught: unknown) => caught
		);
		expect(error).toBeInstanceOf(ContractError);
		const { code, status, message } = error as ContractError;
		return { code, status, message };
	}

	/** A conversation a customer joined, known to the inbox. */
	async function conversation(): Promise<string> {
		const invite = await inbox.upstream.call(v1.createInvite(), { idempotencyKey: `invite-${Math.random()}` });
		const customer = await Customer.redeem(sim.url, { shortCode: invite.value.shortCode });
		await ensureConversation(db, customer.conversationId, 'active', new Date());
		return customer.conversationId;
	}

	it('signs with the inbox’s credentials and keeps the browser’s headers and cookies behind', async () => {
		const response = await call('GET', 'conversations', {
			search: '?limit=5',
			headers: { cookie: 'inbox_session=secret', authorization: 'Bearer browser-token', 'x-forwarded-for': '10.0.0.1' }
		});
		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(response.headers.get('cache-control')).toBe('no-store');
		expect(await response.json()).toMatchObject({ data: expect.any(Array) });
		const seen = front.seen.at(-1)!;
		expect(seen.path).toBe('/v1/conversations?limit=5');
		expect(seen.headers.authorization).toBe(`Bearer ${company.apiKey}`);
		expect(seen.headers.cookie).toBeUndefined();
		expect(seen.headers['x-forwarded-for']).toBeUndefined();
	});

	it('relays only JSON, and of the service’s headers only Idempotent-Replayed and Retry-After', async () => {
		const path = (id: string) => `/v1/conversations/${id}`;
		front.answerPath(path('conv_html0000'), { status: 200, headers: { 'content-type': 'text/html' }, body: '<script>x</script>' });
		front.answerPath(path('conv_untyped00'), { status: 200, headers: {}, body: '{}' });
		front.answerPath(path('conv_notjson00'), { status: 200, headers: { 'content-type': 'application/json' }, body: '<b>' });
		front.answerPath(path('conv_json00000'), {
			status: 404,
			headers: { 'content-type': 'application/json', 'retry-after': '7', 'set-cookie': 'a=b', 'x-internal': 'secret' },
			body: '{"error":{"code":"NOT_FOUND","message":"<b>no</b>"}}'
		});
		const relaysOnlyJson = (what: string) => ({
			code: 'INVALID_RESPONSE',
			status: 502,
			message: `the service answered 200 with ${what}; the inbox relays only JSON`
		});
		expect(await refusal(call('GET', 'conversations/conv_html0000'))).toEqual(relaysOnlyJson('Content-Type text/html'));
		expect(await refusal(call('GET', 'conversations/conv_untyped00'))).toEqual(relaysOnlyJson('no Content-Type'));
		expect(await refusal(call('GET', 'conversations/conv_notjson00'))).toEqual(relaysOnlyJson('a body that is not JSON'));
		front.answerPath(path('conv_empty0000'), { status: 204, headers: { 'idempotent-replayed': 'true', 'x-internal': 'secret' }, body: '' });
		const empty = await call('GET', 'conversations/conv_empty0000');
		expect([
			empty.status,
			empty.headers.get('cache-control'),
			empty.headers.get('idempotent-replayed'),
			empty.headers.get('x-internal')
		]).toEqual([204, 'no-store', 'true', null]);
		expect(await empty.text()).toBe('');
		const relayed = await call('GET', 'conversations/conv_json00000');
		expect(relayed.status).toBe(404);
		expect([relayed.headers.get('retry-after'), relayed.headers.get('set-cookie'), relayed.headers.get('x-internal')]).toEqual([
			'7',
			null,
			null
		]);
		expect(await relayed.json()).toEqual({ error: { code: 'NOT_FOUND', message: '<b>no</b>' } });
	});

	it('a service that keeps failing is 503 UPSTREAM_UNAVAILABLE, never its own answer', async () => {
		// as many failures as the interactive retry policy makes attempts
		front.failNext(INTERACTIVE_RETRY.attempts, { status: 500 });
		expect(await refusal(call('GET', 'conversations'))).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503 });
		front.failNext(INTERACTIVE_RETRY.attempts, { status: 502 });
		expect(await refusal(call('POST', 'conversations/conv_abcdefgh/typing', { headers: { 'idempotency-key': 'typing-1' } }))).toEqual({
			code: 'UPSTREAM_UNAVAILABLE',
			status: 503,
			message: 'the service answered 502; retry with the same Idempotency-Key'
		});
	});

	it('sends the browser’s Idempotency-Key, or its own, and answers with it', async () => {
		const id = await conversation();
		const given = await call('POST', `conversations/${id}/typing`, { headers: { 'idempotency-key': 'typing-given-1' } });
		expect([given.status, given.headers.get('idempotency-key')]).toEqual([200, 'typing-given-1']);
		expect(front.seen.at(-1)!.headers['idempotency-key']).toBe('typing-given-1');
		expect(front.seen.at(-1)!.body).toBe('{}');
		const made = await call('POST', `conversations/${id}/typing`);
		expect(made.headers.get('idempotency-key')).toMatch(/^prx_[A-Za-z0-9_-]{24}$/);
		expect(front.seen.at(-1)!.headers['idempotency-key']).toBe(made.headers.get('idempotency-key'));
		for (const key of ['', 'with space', 'é', 'k'.repeat(129)]) {
			expect(await refusal(call('POST', `conversations/${id}/typing`, { headers: { 'idempotency-key': key } })), key).toEqual({
				code: 'INVALID_IDEMPOTENCY_KEY',
				status: 400,
				message: 'Idempotency-Key must be 1 to 128 printable ASCII characters (0x21–0x7e)'
			});
		}
		expect((await call('POST', `conversations/${id}/typing`, { headers: { 'idempotency-key': 'k'.repeat(128) } })).status).toBe(200);
	});

	it('refuses a body that is not JSON or too large before the service sees it', async () => {
		const before = front.seen.length;
		expect(
			await refusal(
				call('POST', 'conversations/conv_abcdefgh/read', { body: '{"upToMessageId":"msg_1"}', headers: { 'content-type': 'text/plain' } })
			)
		).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
		expect(
			await refusal(call('POST', 'conversations/conv_abcdefgh/read', { body: '[1]', headers: { 'content-type': 'application/json' } }))
		).toMatchObject({
			code: 'INVALID_REQUEST'
		});
		const large = JSON.stringify({ pad: 'x'.repeat(5000) });
		expect(
			await refusal(call('POST', 'conversations/conv_abcdefgh/read', { body: large, headers: { 'content-type': 'application/json' } }))
		).toMatchObject({
			code: 'PAYLOAD_TOO_LARGE',
			status: 413
		});
		expect(front.seen.length).toBe(before);
	});

	it('keeps a sent message, a read pointer and a closed status, and tells the other agents', async () => {
		const id = await conversation();
		const newestEvent = async () => (await liveEventsAfter(db, 0, 10_000)).at(-1)?.id ?? 0;
		const envelope = encryptMessage({
			text: 'hello',
			conversationKey: new Uint8Array(32).fill(4),
			conversationId: id,
			senderType: 'company',
			keyVersion: 1,
			clientMessageId: 'srv_proxytest0001'
		});
		let since = await newestEvent();
		const sent = await call('POST', 'messages', {
			body: JSON.stringify({ conversationId: id, contentType: 'text', encryption: envelope }),
			headers: { 'content-type': 'application/json', 'idempotency-key': 'send-1' }
		});
		expect(sent.status).toBe(201);
		const message = await sent.json();
		const stored = await listStoredMessages(db, id, 0, 10);
		expect(stored.messages.map((m) => m.messageId)).toEqual([message.messageId]);
		expect((await liveEventsAfter(db, since, 10)).map((event) => event.type)).toEqual(['message.created', 'conversation.changed']);

		since = await newestEvent();
		const read = await call('POST', `conversations/${id}/read`, {
			body: JSON.stringify({ upToMessageId: message.messageId }),
			headers: { 'content-type': 'application/json' }
		});
		expect(read.status).toBe(200);
		expect((await liveEventsAfter(db, since, 10)).map((event) => event.type)).toEqual(['conversation.changed']);

		since = await newestEvent();
		const closed = await call('POST', `conversations/${id}/close`);
		expect((await closed.json()).status).toBe('closed');
		const [row] = await db.query<{ status: string }>('select status from conversations where conversation_id = $1', [id]);
		expect(row.status).toBe('closed');
		expect((await liveEventsAfter(db, since, 10)).map((event) => [event.type, event.conversationId])).toEqual([
			['conversation.changed', id]
		]);
	});
});
