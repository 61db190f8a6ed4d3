import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Customer } from '$test-support/customer';
import { useDatabases } from '$test-support/databases';
import { quietLogger } from '$test-support/loggers';
import { startSimCompany } from '$test-support/sim-company';
import { startFlakyFront, type FlakyFront } from '$test-support/flaky-front';
import type { CompanyCredentials } from '../../../cli/stack/stack';
import type { RunningSimulator } from '../../../sim/server';
import { ContractError } from '../../errors';
import { encryptMessage, initCrypto } from '../../crypto/index';
import { generateX25519KeyPair } from '../../crypto/keys';
import { v1 } from '../../wire/v1';
import type { Session } from '../auth/sessions';
import { createAccount } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import type { Database } from '../db/database';
import { liveEventsAfter } from '../db/live-events';
import { listStoredMessages } from '../db/messages';
import type { Inbox } from '../inbox';
import { INTERACTIVE_RETRY, UpstreamClient } from '../upstream/client';
import { RateLimited } from '../http/responses';
import type { ServiceRequestDeps } from '../conversations/service-requests';
import { DEFAULT_CAPS, UsageCounter } from '../usage/caps';
import { allowRequest } from './allowlist';
import { proxyRequest } from './proxy';

describe('the signing proxy in process (docs/inbox-api.md §6)', () => {
	const databases = useDatabases('PGlite');
	let sim: RunningSimulator;
	let front: FlakyFront;
	let company: CompanyCredentials;
	let db: Database;
	let inbox: Inbox;
	let deps: ServiceRequestDeps;
	let session: Session;
	let other: Session;

	beforeAll(async () => {
		await initCrypto();
		({ sim, company } = await startSimCompany());
		front = await startFlakyFront(sim.url);
		db = await databases.open();
		const upstream = new UpstreamClient({
			baseUrl: front.url,
			apiKey: company.apiKey,
			signingSecret: company.webhookSecret,
			db,
			sleep: async () => {}
		});
		const companyKey = generateX25519KeyPair();
		inbox = { db, upstream, log: quietLogger, now: Date.now, companyKeys: async () => ({ current: companyKey }) } as unknown as Inbox;
		deps = { db, upstream, log: quietLogger, now: Date.now, usage: new UsageCounter(db, DEFAULT_CAPS) };
		const signIn = async (username: string, role: 'agent' | 'admin') => {
			const account = await createAccount(db, { username, displayName: username, role, passwordHash: 'h' }, new Date());
			return { account, expiresAt: new Date(Date.now() + 3600_000), tokenHash: `hash-${username}` };
		};
		session = await signIn('ada', 'agent');
		other = await signIn('bob', 'agent');
	}, 60_000);
	afterAll(async () => {
		await front?.close();
		await sim?.close();
	});

	function call(
		method: string,
		rest: string,
		init: { body?: string; headers?: Record<string, string>; search?: string; as?: Session } = {}
	) {
		const request = new Request(`http://inbox.test/api/v1/${rest}${init.search ?? ''}`, { method, body: init.body, headers: init.headers });
		return proxyRequest(deps, init.as ?? session, request, allowRequest(method, rest, new URLSearchParams(init.search ?? '')));
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

	it('reads the service’s Content-Type as a media type, and quotes at most 100 characters of one it refuses', async () => {
		front.answerPath('/v1/conversations/conv_spaced000', {
			status: 200,
			headers: { 'content-type': 'Application/JSON ; charset=utf-8' },
			body: '{"ok":true}'
		});
		const spaced = await call('GET', 'conversations/conv_spaced000');
		expect([spaced.status, await spaced.json()]).toEqual([200, { ok: true }]);
		const long = `text/${'x'.repeat(200)}`;
		front.answerPath('/v1/conversations/conv_longtype0', { status: 200, headers: { 'content-type': long }, body: '{}' });
		expect(await refusal(call('GET', 'conversations/conv_longtype0'))).toEqual({
			code: 'INVALID_RESPONSE',
			status: 502,
			message: `the service answered 200 with Content-Type ${long.slice(0, 100)}; the inbox relays only JSON`
		});
	});

	it('a service that keeps failing is 503 UPSTREAM_UNAVAILABLE, never its own answer', async () => {
		// as many failures as the interactive retry policy makes attempts
		front.failNext(INTERACTIVE_RETRY.attempts, { status: 500 });
		expect(await refusal(call('GET', 'conversations'))).toEqual({
			code: 'UPSTREAM_UNAVAILABLE',
			status: 503,
			message: 'the service answered 500'
		});
		front.failNext(INTERACTIVE_RETRY.attempts, { status: 500 });
		expect(await refusal(call('POST', 'conversations/conv_abcdefgh/typing', { headers: { 'idempotency-key': 'typing-0' } }))).toEqual({
			code: 'UPSTREAM_UNAVAILABLE',
			status: 503,
			message: 'the service answered 500; retry with the same Idempotency-Key'
		});
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
		const sealing = { conversationKey: new Uint8Array(32).fill(4), conversationId: id, senderType: 'company' as const, keyVersion: 1 };
		const envelope = encryptMessage({ ...sealing, text: 'hello', clientMessageId: 'srv_proxytest0001' });
		let since = await newestEvent();
		const sent = await call('POST', 'messages', {
			body: JSON.stringify({ conversationId: id, contentType: 'text', encryption: envelope }),
			headers: { 'content-type': 'application/json', 'idempotency-key': 'send-1' }
		});
		expect(sent.status).toBe(201);
		const message = await sent.json();
		const stored = await listStoredMessages(db, id, 0, 10);
		expect(stored.messages.map((m) => m.messageId)).toEqual([message.messageId]);
		expect((await liveEventsAfter(db, since, 10)).map(({ type, conversationId, payload }) => ({ type, conversationId, payload }))).toEqual([
			{ type: 'message.created', conversationId: id, payload: { conversationId: id, message: expect.objectContaining(message) } },
			{ type: 'conversation.changed', conversationId: id, payload: { conversationId: id } }
		]);

		since = await newestEvent();
		const read = await call('POST', `conversations/${id}/read`, {
			body: JSON.stringify({ upToMessageId: message.messageId }),
			headers: { 'content-type': 'application/json' }
		});
		expect(read.status).toBe(200);
		expect((await liveEventsAfter(db, since, 10)).map(({ type, payload }) => ({ type, payload }))).toEqual([
			{ type: 'conversation.changed', payload: { conversationId: id } }
		]);
		// a message sent past the inbox is not stored here: reading up to it changes nothing the other agents see
		const elsewhere = await inbox.upstream.call(
			v1.sendMessage({
				conversationId: id,
				contentType: 'text',
				encryption: encryptMessage({ ...sealing, text: 'elsewhere', clientMessageId: 'srv_proxytest0002' })
			}),
			{ idempotencyKey: 'send-elsewhere' }
		);
		since = await newestEvent();
		const unknown = await call('POST', `conversations/${id}/read`, {
			body: JSON.stringify({ upToMessageId: elsewhere.value.messageId }),
			headers: { 'content-type': 'application/json' }
		});
		expect(unknown.status).toBe(200);
		expect(await liveEventsAfter(db, since, 10)).toEqual([]);

		since = await newestEvent();
		const closed = await call('POST', `conversations/${id}/close`);
		expect((await closed.json()).status).toBe('closed');
		const [row] = await db.query<{ status: string }>('select status from conversations where conversation_id = $1', [id]);
		expect(row.status).toBe('closed');
		expect((await liveEventsAfter(db, since, 10)).map(({ type, conversationId, payload }) => ({ type, conversationId, payload }))).toEqual([
			{ type: 'conversation.changed', conversationId: id, payload: { conversationId: id } }
		]);
	});

	it('refuses a clientMessageId another account sent first, before the service sees it', async () => {
		const id = await conversation();
		const send = (as: Session, idempotencyKey: string) =>
			call('POST', 'messages', {
				as,
				body: JSON.stringify({
					conversationId: id,
					contentType: 'text',
					encryption: encryptMessage({
						text: `from ${as.account.username}`,
						conversationKey: new Uint8Array(32).fill(5),
						conversationId: id,
						senderType: 'company',
						keyVersion: 1,
						clientMessageId: 'srv_authortest01'
					})
				}),
				headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey }
			});
		expect((await send(session, 'author-1')).status).toBe(201);
		const authors = await db.query<{ account_id: string }>('select account_id from message_authors where client_message_id = $1', [
			'srv_authortest01'
		]);
		expect(authors).toEqual([{ account_id: session.account.accountId }]);

		const before = front.seen.length;
		expect(await refusal(send(other, 'author-2'))).toEqual({
			code: 'STATE_CONFLICT',
			status: 409,
			message: 'this clientMessageId belongs to a message another account sent: use a new one'
		});
		expect(front.seen.length).toBe(before);
		// only a send claims a clientMessageId: any other request carrying one is the service's to judge
		await call('POST', `conversations/${id}/read`, {
			as: other,
			body: JSON.stringify({ upToMessageId: 'msg_unknown0000', conversationId: id, encryption: { clientMessageId: 'srv_authortest01' } }),
			headers: { 'content-type': 'application/json' }
		});
		expect(front.seen.length).toBe(before + 1);
	});

	it('keeps nothing of a request the service refused', async () => {
		const id = await conversation();
		const record = await (await call('GET', `conversations/${id}`)).json();
		for (const status of [300, 409]) {
			front.answerPath(`/v1/conversations/${id}/close`, {
				status,
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ ...record, status: 'closed' })
			});
			expect((await call('POST', `conversations/${id}/close`)).status).toBe(status);
			const [row] = await db.query<{ status: string }>('select status from conversations where conversation_id = $1', [id]);
			expect(row.status, `after ${status}`).toBe('active');
		}
	});

	it('keeps one account within its caps: over them 429 RATE_LIMITED with the seconds to wait, and nothing forwarded', async () => {
		const id = await conversation();
		// a clock that stands in the middle of a minute, so no window ends during the test
		const at = Date.UTC(2030, 0, 1, 10, 20, 30);
		const tight = { ...deps, now: () => at, usage: new UsageCounter(db, { ...DEFAULT_CAPS, uploadsPerHour: 2, writesPerMinute: 4 }) };
		const post = (rest: string, body: object, as = session) =>
			proxyRequest(
				tight,
				as,
				new Request(`http://inbox.test/api/v1/${rest}`, {
					method: 'POST',
					body: JSON.stringify(body),
					headers: { 'content-type': 'application/json' }
				}),
				allowRequest('POST', rest, new URLSearchParams())
			);
		const upload = () => post(`conversations/${id}/attachments`, { size: 100 });
		expect((await upload()).status).toBe(201);
		expect((await upload()).status).toBe(201);
		const before = front.seen.length;
		const refused = await upload().then(
			() => undefined,
			(error: unknown) => error
		);
		expect(refused).toBeInstanceOf(RateLimited);
		expect((refused as RateLimited).code).toBe('RATE_LIMITED');
		// the clock stands 20 min 30 s into the hour
		expect((refused as RateLimited).retryAfterSeconds).toBe(2370);
		expect(front.seen.length).toBe(before);
		// the refused upload used nothing: two writes are left this minute, then the write cap refuses too
		expect((await post(`conversations/${id}/typing`, {})).status).toBe(200);
		expect((await post(`conversations/${id}/typing`, {})).status).toBe(200);
		expect(await refusal(post(`conversations/${id}/typing`, {}))).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
		// another account has its own allowance
		expect((await post(`conversations/${id}/typing`, {}, other)).status).toBe(200);
		expect((await tight.usage.usage(new Date(at))).find((row) => row.accountId === session.account.accountId)).toMatchObject({
			uploadsThisHour: 2,
			writesThisMinute: 4
		});
	});
});
