import { beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { quietLogger } from '$test-support/loggers';
import { incomingEvent, webhookHeaders, webhookSignature } from '$test-support/webhooks';
import {
	b64uEncode,
	computeInviteBinding,
	generateInviteSecret,
	generateX25519KeyPair,
	initCrypto,
	sealConversationKey,
	type X25519KeyPair
} from '../../crypto/index';
import { createAccount, registerAgentKey, type Account } from '../db/accounts';
import { ensureConversation, getConversationView } from '../db/conversations';
import type { Database } from '../db/database';
import { storeInviteSecret } from '../db/invites';
import { liveEventsAfter } from '../db/live-events';
import { listStoredMessages } from '../db/messages';
import { updateSettings } from '../db/settings';
import { LeaseLostError, newLease } from '../db/leases';
import { storeRoster } from '../db/rosters';
import { claimDueEvents, storeWebhookEvents } from '../db/webhook-events';
import type { LogFields, Logger } from '../log';
import { currentRequest, inRequest } from '../request-context';
import { applyMessageBatch, messagesOf } from './message-batch';
import { WebhookProcessor } from './processor';
import { WebhookReceiver } from './receiver';

let company: X25519KeyPair;
let eventCounter = 0;

beforeAll(async () => {
	await initCrypto();
	company = generateX25519KeyPair();
});

/** A conversation.started as the customer's app makes it (contract 6, 6.3). */
function started(
	conversationId: string,
	options: { secret?: Uint8Array | null; isReinvite?: boolean; agentWraps?: unknown[]; createdAt?: string; user?: X25519KeyPair } = {}
) {
	const user = options.user ?? generateX25519KeyPair();
	const conversationKey = new Uint8Array(32).fill(7);
	const wrapForCompany = sealConversationKey({ conversationKey, conversationId, keyVersion: 1, recipientPublicKey: company.publicKey });
	const data: Record<string, unknown> = {
		conversationId,
		conversationKey: wrapForCompany,
		userPublicKey: b64uEncode(user.publicKey),
		isReinvite: options.isReinvite ?? false,
		agentWraps: options.agentWraps ?? []
	};
	if (options.secret) {
		data.inviteBinding = b64uEncode(
			computeInviteBinding({ inviteSecret: options.secret, conversationId, userPublicKey: user.publicKey, wrapForCompany })
		);
	}
	return { id: `evt_s${++eventCounter}`, type: 'conversation.started', createdAt: options.createdAt ?? '2026-11-22T10:00:00Z', data };
}

function messageCreated(conversationId: string, seq: number) {
	return {
		id: `evt_m${++eventCounter}`,
		type: 'message.created',
		createdAt: '2026-11-22T10:01:00Z',
		data: {
			conversationId,
			messageId: `msg_${conversationId}_${seq}`,
			seq,
			senderType: 'user',
			contentType: 'text',
			encryption: { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId: `usr_${seq}`, nonce: 'n', ciphertext: 'c' },
			createdAt: '2026-11-22T10:01:00Z'
		}
	};
}

describe.each(BACKENDS)('webhook processing on %s (contract 6, 6.3)', (backend) => {
	const databases = useDatabases(backend);
	let db: Database;
	let processor: WebhookProcessor;
	let agent: Account;
	let rewrapWakes = 0;

	beforeAll(async () => {
		db = await databases.open();
		processor = new WebhookProcessor({ db, now: Date.now, log: quietLogger, wakeRewraps: () => rewrapWakes++ });
		const created = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'agent', passwordHash: 'h' }, new Date());
		agent = await registerAgentKey(
			db,
			{ accountId: created.accountId, agentKeyId: 'agk_ada0000000', publicKey: 'PK', replace: false },
			new Date()
		);
		// Ada's key is in the latest roster: her view of a conversation sealed for her is whole (docs/inbox-api.md §1 "Access")
		await storeRoster(db, {
			rosterVersion: 1,
			issuedAt: '2026-11-01T00:00:00Z',
			agents: [{ agentKeyId: 'agk_ada0000000', publicKey: 'PK' }],
			signature: 'S',
			uploadedBy: null,
			uploadedAt: new Date()
		});
	}, 60_000);

	async function deliver(...events: object[]): Promise<void> {
		await storeWebhookEvents(
			db,
			events.map((event) => incomingEvent(event as { id: string; type: string })),
			new Date()
		);
		while ((await processor.runOnce()) > 0);
	}

	async function invite(
		conversationId: string,
		kind: 'invite' | 'reinvite' = 'invite',
		createdBy: string | null = null
	): Promise<Uint8Array> {
		const secret = generateInviteSecret();
		await ensureConversation(db, conversationId, 'pending', new Date());
		await storeInviteSecret(
			db,
			{
				inviteId: `inv_${conversationId}_${kind}_${++eventCounter}`,
				conversationId,
				kind,
				secret: b64uEncode(secret),
				createdBy,
				expiresAt: new Date(Date.now() + 3600_000)
			},
			new Date()
		);
		return secret;
	}

	const view = (conversationId: string) => getConversationView(db, agent, conversationId);
	const states = async () => db.query<{ event_id: string; state: string }>('select event_id, state from webhook_events order by seq');

	it('while webhooks arrive, a backlog makes each full batch the double of the last, up to 60; a batch that is not full goes back to 20', async () => {
		await storeWebhookEvents(
			db,
			Array.from({ length: 150 }, (_, seq) => incomingEvent(messageCreated('conv_backlog', seq + 1))),
			new Date()
		);
		const sizes: number[] = [];
		for (;;) {
			// the receiver stores events the whole time
			processor.wake();
			const taken = await processor.runOnce();
			if (taken === 0) break;
			sizes.push(taken);
		}
		expect(sizes).toEqual([20, 40, 60, 30]);
		await storeWebhookEvents(
			db,
			Array.from({ length: 25 }, (_, seq) => incomingEvent(messageCreated('conv_backlog', seq + 151))),
			new Date()
		);
		processor.wake();
		expect(await processor.runOnce()).toBe(20);
		while ((await processor.runOnce()) > 0);
	});

	it('a binding that matches the stored invite secret makes the conversation verified, and the secret is deleted', async () => {
		const secret = await invite('conv_ok');
		await deliver(
			started('conv_ok', {
				secret,
				agentWraps: [{ agentKeyId: 'agk_ada0000000', rosterVersion: 1, wrap: { keyVersion: 1, sealed: 'AAAA' } }]
			})
		);
		expect(await view('conv_ok')).toMatchObject({
			status: 'active',
			trust: 'verified',
			rewrap: { state: 'none' },
			agentWraps: [{ agentKeyId: 'agk_ada0000000' }]
		});
		expect(await db.query('select 1 from invite_secrets where conversation_id = $1', ['conv_ok'])).toEqual([]);
	});

	it('a binding made with another secret is binding_invalid; no binding (short code) is unverified', async () => {
		await invite('conv_bad');
		await deliver(started('conv_bad', { secret: generateInviteSecret() }));
		expect((await view('conv_bad'))?.trust).toBe('binding_invalid');
		await invite('conv_code');
		await deliver(started('conv_code', { secret: null }));
		expect((await view('conv_code'))?.trust).toBe('unverified');
	});

	it('re-invitations move the conversation to awaiting_key: verified ones are queued or wait for a second person, others wait or are blocked', async () => {
		for (const policy of ['automatic', 'second_person'] as const) {
			await updateSettings(db, { reinviteRewrap: policy }, agent, new Date());
			for (const [id, kind] of [
				[`conv_re_ok_${policy}`, 'verified'],
				[`conv_re_code_${policy}`, 'unverified'],
				[`conv_re_bad_${policy}`, 'invalid']
			] as const) {
				const first = await invite(id);
				// sealed for Ada, who may then read it (docs/inbox-api.md §1 "Access")
				const agentWraps = [{ agentKeyId: 'agk_ada0000000', rosterVersion: 1, wrap: { keyVersion: 1, sealed: 'AAAA' } }];
				await deliver(started(id, { secret: first, agentWraps }));
				const again = await invite(id, 'reinvite', agent.accountId);
				const wakesBefore = rewrapWakes;
				await deliver(
					started(id, {
						isReinvite: true,
						secret: kind === 'verified' ? again : kind === 'invalid' ? generateInviteSecret() : null,
						createdAt: '2026-11-22T11:00:00Z'
					})
				);
				expect(rewrapWakes - wakesBefore).toBe(kind === 'verified' && policy === 'automatic' ? 1 : 0);
				const [changed] = (await view(id))!.keyEvents;
				expect(changed).toMatchObject({
					kind: 'key_changed',
					actorName: null,
					details: { trust: kind === 'invalid' ? 'binding_invalid' : kind }
				});
			}
			// The one who re-invited may approve only when the team does not ask for a second person.
			const mayApprove = policy === 'automatic';
			expect(await view(`conv_re_ok_${policy}`)).toMatchObject({
				status: 'awaiting_key',
				trust: 'verified',
				rewrap: { state: policy === 'automatic' ? 'queued' : 'needs_confirmation' },
				mayApproveRewrap: mayApprove
			});
			expect(await view(`conv_re_code_${policy}`)).toMatchObject({
				status: 'awaiting_key',
				trust: 'unverified',
				rewrap: { state: 'needs_confirmation' },
				mayApproveRewrap: mayApprove
			});
			expect(await view(`conv_re_bad_${policy}`)).toMatchObject({
				status: 'awaiting_key',
				trust: 'binding_invalid',
				rewrap: { state: 'blocked' }
			});
		}
	});

	it('a binding that does not match is binding_invalid even for a key the inbox saw before', async () => {
		const user = generateX25519KeyPair();
		await deliver(started('conv_seen', { secret: await invite('conv_seen'), user }));
		expect((await view('conv_seen'))?.trust).toBe('verified');
		await invite('conv_seen', 'reinvite');
		await deliver(started('conv_seen', { isReinvite: true, secret: generateInviteSecret(), user, createdAt: '2026-11-22T11:00:00Z' }));
		expect(await view('conv_seen')).toMatchObject({ trust: 'binding_invalid', rewrap: { state: 'blocked' } });
	});

	it('an older conversation.started delivered late does not replace the newer key', async () => {
		const secret = await invite('conv_late');
		const newer = started('conv_late', { secret, createdAt: '2026-11-22T12:00:00Z' });
		const older = started('conv_late', { secret: null, createdAt: '2026-11-22T09:00:00Z' });
		await deliver(newer);
		await deliver(older);
		expect((await view('conv_late'))?.trust).toBe('verified');
	});

	it('messages are stored as received, once, however often their event is processed', async () => {
		await deliver(messageCreated('conv_ok', 1), messageCreated('conv_ok', 2));
		const again = messageCreated('conv_ok', 2);
		await deliver(again);
		// The same event id again is not even stored a second time; a second event with the same message is a no-op.
		await deliver(again);
		const { messages } = await listStoredMessages(db, 'conv_ok', 0, 10);
		expect(messages.map((message) => message.messageId)).toEqual(['msg_conv_ok_1', 'msg_conv_ok_2']);
		expect(messages[0].encryption).toMatchObject({ clientMessageId: 'usr_1', nonce: 'n' });
		expect((await view('conv_ok'))?.unreadCount).toBe(2);
		const live = await liveEventsAfter(db, 0, 1000);
		const announced = live.filter((event) => event.type === 'message.created' && event.conversationId === 'conv_ok');
		// What the browsers are told is exactly what is stored.
		expect(announced.map((event) => event.payload)).toEqual(messages.map((message) => ({ conversationId: 'conv_ok', message })));
		const changed = live.filter((event) => event.type === 'conversation.changed' && event.conversationId === 'conv_ok');
		expect(changed.at(-1)!.id).toBeGreaterThan(announced.at(-1)!.id);
	});

	it('a webhook message is the customer’s even when its body says company (contract 6.2)', async () => {
		const claimsCompany = (seq: number) => {
			const event = messageCreated('conv_claim', seq);
			return { ...event, data: { ...event.data, senderType: 'company' } };
		};
		await deliver(claimsCompany(1), claimsCompany(2));
		await deliver(claimsCompany(3));
		const { messages } = await listStoredMessages(db, 'conv_claim', 0, 10);
		expect(messages.map((message) => [message.seq, message.senderType])).toEqual([
			[1, 'user'],
			[2, 'user'],
			[3, 'user']
		]);
	});

	it('an event whose id came only in X-Service-Event-Id is processed under that id', async () => {
		const withoutBodyId = (event: { id: string; type: string }) => {
			const { id, ...body } = event;
			// As the receiver stores it: under the header's id, with the body exactly as received.
			return { eventId: id, idInBody: false, eventType: event.type, deliveryId: null, attempt: 1, rawBody: JSON.stringify(body) };
		};
		const first = withoutBodyId(messageCreated('conv_hdr', 1));
		const second = withoutBodyId(messageCreated('conv_hdr', 2));
		// Alone, a message takes the one-statement path; beside an event of another type, the general one.
		await storeWebhookEvents(db, [first, withoutBodyId({ id: `evt_u${++eventCounter}`, type: 'something.new' })], new Date());
		while ((await processor.runOnce()) > 0);
		await storeWebhookEvents(db, [second], new Date());
		while ((await processor.runOnce()) > 0);
		const { messages } = await listStoredMessages(db, 'conv_hdr', 0, 10);
		expect(messages.map((message) => message.messageId)).toEqual(['msg_conv_hdr_1', 'msg_conv_hdr_2']);
		const rows = await db.query<{ state: string }>(`select state from webhook_events where event_id = any($1)`, [
			[first.eventId, second.eventId]
		]);
		expect(rows.map((row) => row.state)).toEqual(['processed', 'processed']);
	});

	it('one signed body without an id, received under two X-Service-Event-Ids, is processed once: one message, and the start stays verified', async () => {
		const secret = 'whsec_replayed';
		const receiver = new WebhookReceiver({ db, secrets: () => [secret], now: Date.now, log: quietLogger });
		/** The contract's bodies carry neither an event id nor, for a message, a message id (contract 6). */
		const idless = (event: { id: string; data: object }) => {
			const { id: _id, ...body } = event;
			const { messageId: _messageId, seq: _seq, ...data } = event.data as Record<string, unknown>;
			return JSON.stringify({ ...body, data });
		};
		const receive = async (body: string, headerIds: string[]) => {
			const signature = webhookSignature(secret, body);
			for (const eventId of headerIds) {
				const request = new Request('http://inbox.test/webhooks/service', {
					method: 'POST',
					headers: webhookHeaders(signature, eventId),
					body
				});
				expect((await receiver.handle(request)).status).toBe(200);
			}
			while ((await processor.runOnce()) > 0);
		};

		const inviteSecret = await invite('conv_replayed');
		await receive(idless(started('conv_replayed', { secret: inviteSecret })), ['evt_start_a', 'evt_start_b']);
		expect((await view('conv_replayed'))?.trust).toBe('verified');
		await receive(idless(messageCreated('conv_replayed', 1)), ['evt_said_a', 'evt_said_b']);
		const { messages } = await listStoredMessages(db, 'conv_replayed', 0, 10);
		expect(messages.map((message) => message.messageId)).toEqual(['evt_said_a']);
	});

	it('logs what it does of an event under the id of the request that stored it (docs/operations.md "Logs")', async () => {
		const lines: [string, string | undefined, unknown][] = [];
		const record = (message: string, fields?: LogFields) =>
			lines.push([message, currentRequest()?.requestId, fields?.event ?? fields?.conversation]);
		const log: Logger = { info: record, warn: record, error: record };
		const logging = new WebhookProcessor({ db, now: Date.now, log, wakeRewraps: () => {} });
		const receiver = new WebhookReceiver({ db, secrets: () => ['whsec_ids'], now: Date.now, log });
		const receive = (requestId: string, event: { id: string; type: string; data: object }) => {
			const body = JSON.stringify(event);
			const request = new Request('http://inbox.test/webhooks/service', {
				method: 'POST',
				headers: webhookHeaders(webhookSignature('whsec_ids', body)),
				body
			});
			return inRequest({ requestId }, () => receiver.handle(request));
		};
		// two messages take the one-statement path; a start, with its handler's line, the general one; a malformed event is set aside
		await receive('req_said_1', messageCreated('conv_ids', 1));
		await receive('req_said_2', messageCreated('conv_ids', 2));
		while ((await logging.runOnce()) > 0);
		await receive('req_start', { ...started('conv_ids_2'), id: 'evt_ids_start' });
		while ((await logging.runOnce()) > 0);
		await receive('req_broken', { id: 'evt_ids_broken', type: 'conversation.started', data: { conversationId: 'conv_ids_3' } });
		await storeWebhookEvents(
			db,
			[
				{
					eventId: 'evt_ids_bare',
					idInBody: true,
					eventType: 'brand.new',
					deliveryId: null,
					attempt: 1,
					rawBody: '{"id":"evt_ids_bare","type":"brand.new"}'
				}
			],
			new Date()
		);
		while ((await logging.runOnce()) > 0);
		expect(lines).toEqual([
			['webhook event processed', 'req_said_1', 'evt_m' + (eventCounter - 2)],
			['webhook event processed', 'req_said_2', 'evt_m' + (eventCounter - 1)],
			['conversation started', 'req_start', 'conv_ids_2'],
			['webhook event processed', 'req_start', 'evt_ids_start'],
			['webhook event rejected as malformed', 'req_broken', 'evt_ids_broken'],
			['webhook event processed', undefined, 'evt_ids_bare']
		]);
	});

	it('unknown event types are kept and ignored; malformed known events are set aside as rejected', async () => {
		await deliver({ id: 'evt_new_kind', type: 'brand.new', data: { anything: true } });
		await deliver({
			id: 'evt_broken',
			type: 'conversation.started',
			data: { conversationId: 'conv_x', conversationKey: { keyVersion: 0, sealed: 'A' } }
		});
		const byId = new Map((await states()).map((row) => [row.event_id, row.state]));
		expect(byId.get('evt_new_kind')).toBe('processed');
		expect(byId.get('evt_broken')).toBe('rejected');
		expect(await view('conv_x')).toBeUndefined();
	});

	it('a transient failure leaves the event pending for a later attempt, and nothing half-applied', async () => {
		const event = messageCreated('conv_tx', 1);
		// A statement that fails for a while: the message table refuses this conversation until the check is dropped.
		await db.query(`alter table conversation_messages add constraint no_conv_tx check (conversation_id <> 'conv_tx') not valid`);
		await storeWebhookEvents(db, [incomingEvent(event)], new Date());
		await processor.runOnce();
		const [row] = await db.query<{ state: string; last_error: string; next_attempt_at: Date }>(
			'select state, last_error, next_attempt_at from webhook_events where event_id = $1',
			[event.id]
		);
		expect(row.state).toBe('pending');
		expect(row.last_error).toMatch(/no_conv_tx/);
		expect(new Date(row.next_attempt_at).getTime()).toBeGreaterThan(Date.now());
		expect(await db.query('select 1 from live_events where conversation_id = $1', ['conv_tx'])).toEqual([]);
		await db.query('alter table conversation_messages drop constraint no_conv_tx');
		await db.query('update webhook_events set next_attempt_at = $2 where event_id = $1', [event.id, new Date()]);
		await processor.runOnce();
		expect((await listStoredMessages(db, 'conv_tx', 0, 10)).messages).toHaveLength(1);
	});
	it('a process that resumes after its lease passed re-applies nothing: its batch is refused whole, the holder applies it once', async () => {
		const events = [messageCreated('conv_lease', 1), messageCreated('conv_lease', 2)];
		const start = Date.now();
		await storeWebhookEvents(db, events.map(incomingEvent), new Date(start));
		const paused = await claimDueEvents(db, 100, newLease(1_000), new Date(start + 1));
		expect(paused.map((event) => event.eventId)).toEqual(events.map((event) => event.id));
		const taken = await claimDueEvents(db, 100, newLease(15_000), new Date(start + 2_000));
		expect(taken.map((event) => event.eventId)).toEqual(events.map((event) => event.id));

		await expect(applyMessageBatch(db, paused, messagesOf(paused, new Date())!, new Date())).rejects.toBeInstanceOf(LeaseLostError);
		expect((await listStoredMessages(db, 'conv_lease', 0, 10)).messages).toEqual([]);
		expect(await db.query('select 1 from live_events where conversation_id = $1', ['conv_lease'])).toEqual([]);

		expect(await applyMessageBatch(db, taken, messagesOf(taken, new Date())!, new Date())).toEqual({ stored: 2 });
		await expect(applyMessageBatch(db, paused, messagesOf(paused, new Date())!, new Date())).rejects.toBeInstanceOf(LeaseLostError);
		expect((await listStoredMessages(db, 'conv_lease', 0, 10)).messages.map((message) => message.seq)).toEqual([1, 2]);
		const announced = await db.query<{ type: string }>('select type from live_events where conversation_id = $1 order by id', [
			'conv_lease'
		]);
		expect(announced.map((row) => row.type)).toEqual(['message.created', 'message.created', 'conversation.changed']);
		expect((await states()).filter((row) => events.some((event) => event.id === row.event_id)).map((row) => row.state)).toEqual([
			'processed',
			'processed'
		]);
	});
});
