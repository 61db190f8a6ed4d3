import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { ContractError } from '../../errors';
import { createSession, deleteSession, resolveSession, SESSION_IDLE_MS, SESSION_MAX_MS } from '../auth/sessions';
import { createAccount, findAccountForLogin, registerAgentKey, setAccountDisabled } from './accounts';
import { ensureConversation, getConversationView, listConversationViews, recordStart, updateStatus } from './conversations';
import { migrate, SchemaTooNewError } from './migrate';
import { MIGRATIONS } from './migrations';
import { appendLiveEvent, LIVE_CHANNEL, liveEventsAfter } from './live-events';
import { listStoredMessages, markReadUpTo, storeAgentWraps, storeMessage } from './messages';
import {
	addGrantItems,
	claimGrantJob,
	createGrantJob,
	finishGrantJob,
	getGrantJob,
	pendingGrantItems,
	releaseGrantJob,
	renewGrantLease,
	settleGrantItems
} from './grant-jobs';
import { LeaseLostError, newLease } from './leases';
import { storeRoster } from './rosters';
import { loadOrCreateOperation } from './operations';
import {
	claimDueEvents,
	eventStates,
	markEventFailed,
	markEventForRetry,
	markEventsProcessed,
	releaseLease,
	renewLease,
	storeWebhookEvents,
	type IncomingEvent
} from './webhook-events';

const t0 = new Date('2026-11-22T10:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const wrap = { keyVersion: 1, sealed: 'A'.repeat(120) };
const envelope = { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId: 'm1', nonce: 'n', ciphertext: 'c' } as never;

const event = (id: string): IncomingEvent => ({
	eventId: id,
	idInBody: true,
	eventType: 'message.created',
	deliveryId: 'dlv_1',
	attempt: 1,
	rawBody: `{"id":"${id}"}`
});

describe.each(BACKENDS)('stores on %s', (backend) => {
	const databases = useDatabases(backend);

	it('migrations are recorded once, re-running them is a no-op, and a newer schema is refused', async () => {
		const db = await databases.open();
		expect(await migrate(db)).toEqual([]);
		const rows = await db.query<{ version: number }>('select version from schema_migrations order by version');
		expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
		await db.query(`insert into schema_migrations (version, name, applied_at) values (999, 'future', now())`);
		await expect(migrate(db)).rejects.toThrow(SchemaTooNewError);
	});

	it('usernames are unique, agent keys register once and move only with replace', async () => {
		const db = await databases.open();
		const ada = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'agent', passwordHash: 'h' }, t0);
		await expect(createAccount(db, { username: 'ada', displayName: 'Other', role: 'admin', passwordHash: 'h' }, t0)).rejects.toMatchObject({
			code: 'ALREADY_EXISTS',
			status: 409
		});
		const bob = await createAccount(db, { username: 'bob', displayName: 'Bob', role: 'agent', passwordHash: 'h' }, t0);
		const key = { agentKeyId: 'agk_aaaaaaaaaaaaaaaa', publicKey: 'K1' };
		expect((await registerAgentKey(db, { accountId: ada.accountId, ...key, replace: false }, t0)).agentKeyId).toBe(key.agentKeyId);
		expect((await registerAgentKey(db, { accountId: ada.accountId, ...key, replace: false }, t0)).agentPublicKey).toBe('K1');
		await expect(
			registerAgentKey(db, { accountId: ada.accountId, agentKeyId: 'agk_bbbbbbbbbbbbbbbb', publicKey: 'K2', replace: false }, t0)
		).rejects.toMatchObject({
			code: 'ALREADY_EXISTS'
		});
		await expect(registerAgentKey(db, { accountId: bob.accountId, ...key, replace: true }, t0)).rejects.toBeInstanceOf(ContractError);
		await registerAgentKey(db, { accountId: ada.accountId, agentKeyId: 'agk_bbbbbbbbbbbbbbbb', publicKey: 'K2', replace: true }, t0);
		expect((await findAccountForLogin(db, 'ada'))?.account.agentPublicKey).toBe('K2');
	});

	it('sessions: found by token only, slid forward on use, ended by logout, idle time and the absolute limit', async () => {
		const db = await databases.open();
		const ada = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'admin', passwordHash: 'h' }, t0);
		const { token, expiresAt } = await createSession(db, ada.accountId, t0);
		expect(expiresAt.getTime()).toBe(t0.getTime() + SESSION_IDLE_MS);
		const [stored] = await db.query<{ token_hash: string }>('select token_hash from sessions');
		expect(stored.token_hash).not.toContain(token);
		expect((await resolveSession(db, token, at(60)))?.account).toMatchObject({ username: 'ada', role: 'admin' });
		expect(await resolveSession(db, `${token}x`, at(60))).toBeUndefined();
		expect(await resolveSession(db, undefined, at(60))).toBeUndefined();
		// Used after 11 hours: the idle limit moves to 11 + 12 hours.
		const slid = await resolveSession(db, token, at(11 * 3600));
		expect(slid?.expiresAt.getTime()).toBe(at(11 * 3600).getTime() + SESSION_IDLE_MS);
		expect(await resolveSession(db, token, at(11 * 3600 + SESSION_IDLE_MS / 1000 + 1))).toBeUndefined();

		const second = await createSession(db, ada.accountId, t0);
		let now = t0.getTime();
		while (now + 10 * 3600_000 < t0.getTime() + SESSION_MAX_MS) {
			now += 10 * 3600_000;
			expect(await resolveSession(db, second.token, new Date(now))).toBeDefined();
		}
		expect(await resolveSession(db, second.token, new Date(t0.getTime() + SESSION_MAX_MS + 1000))).toBeUndefined();

		const third = await createSession(db, ada.accountId, t0);
		await deleteSession(db, third.token);
		expect(await resolveSession(db, third.token, at(1))).toBeUndefined();
	});

	it('a session of a disabled account no longer resolves, even while its row remains', async () => {
		const db = await databases.open();
		const bob = await createAccount(db, { username: 'bob', displayName: 'Bob', role: 'agent', passwordHash: 'h' }, t0);
		const { token } = await createSession(db, bob.accountId, t0);
		expect(await resolveSession(db, token, at(1))).toBeDefined();
		await setAccountDisabled(db, bob.accountId, at(2));
		expect(await db.query('select 1 from sessions')).toHaveLength(1);
		expect(await resolveSession(db, token, at(3))).toBeUndefined();
		await setAccountDisabled(db, bob.accountId, null);
		expect(await resolveSession(db, token, at(4))).toBeDefined();
	});

	it('webhook events are stored once per id, also within one batch and when repeated', async () => {
		const db = await databases.open();
		const first = await storeWebhookEvents(db, [event('evt_1'), event('evt_2'), event('evt_1')], t0);
		expect([...first.keys()].sort()).toEqual(['evt_1', 'evt_2']);
		expect(first.get('evt_2')).toBeGreaterThan(first.get('evt_1')!);
		expect([...(await storeWebhookEvents(db, [event('evt_2'), event('evt_3')], t0)).keys()]).toEqual(['evt_3']);
		const [{ count }] = await db.query<{ count: number }>('select count(*)::int as count from webhook_events');
		expect(count).toBe(3);
	});

	it('writes in flight at once that carry the same id store it once, and only one of them learns its position', async () => {
		const db = await databases.open();
		const writes = await Promise.all(
			['a', 'b', 'c', 'd'].map((own) => storeWebhookEvents(db, [event('evt_same'), event(`evt_${own}`)], t0))
		);
		expect(writes.filter((inserted) => inserted.has('evt_same'))).toHaveLength(1);
		expect(writes.map((inserted) => [...inserted.keys()].filter((id) => id !== 'evt_same'))).toEqual([
			['evt_a'],
			['evt_b'],
			['evt_c'],
			['evt_d']
		]);
		const [{ count }] = await db.query<{ count: number }>('select count(*)::int as count from webhook_events');
		expect(count).toBe(5);
	});

	it('claiming leases due events in order; a lease hides them until it expires; a retry waits', async () => {
		const db = await databases.open();
		await storeWebhookEvents(db, [event('evt_1'), event('evt_2'), event('evt_3')], t0);
		const first = await claimDueEvents(db, 2, newLease(30_000), at(1));
		expect(first.map((stored) => stored.eventId)).toEqual(['evt_1', 'evt_2']);
		expect((await claimDueEvents(db, 10, newLease(30_000), at(2))).map((stored) => stored.eventId)).toEqual(['evt_3']);
		expect(await claimDueEvents(db, 10, newLease(30_000), at(3))).toEqual([]);
		await markEventsProcessed(db, [first[0].seq], first[0].leaseToken, at(3));
		await markEventForRetry(db, first[1], 'boom', at(100));
		// evt_3's lease runs out at 32 s; evt_2 waits for its retry time. Attempts count failures only.
		expect((await claimDueEvents(db, 10, newLease(30_000), at(40))).map((stored) => [stored.eventId, stored.processAttempts])).toEqual([
			['evt_3', 0]
		]);
		// At 100 s evt_2 is due, and evt_3's second lease (to 70 s) has run out too.
		expect((await claimDueEvents(db, 10, newLease(30_000), at(100))).map((stored) => [stored.eventId, stored.processAttempts])).toEqual([
			['evt_2', 1],
			['evt_3', 0]
		]);
	});

	it('a lease is fenced: once another process holds the events, the old token marks nothing and rolls its transaction back', async () => {
		const db = await databases.open();
		await storeWebhookEvents(db, [event('evt_1'), event('evt_2')], t0);
		const paused = await claimDueEvents(db, 10, newLease(15_000), at(1));
		// The first process pauses past its lease; another takes the events.
		const taker = newLease(15_000);
		const taken = await claimDueEvents(db, 10, taker, at(20));
		expect(taken.map((stored) => stored.eventId)).toEqual(['evt_1', 'evt_2']);

		await db.exec('create table applied_effects (event_id text)');
		const resumed = db.transaction(async (tx) => {
			await tx.query("insert into applied_effects values ('evt_1')");
			await markEventsProcessed(tx, [paused[0].seq], paused[0].leaseToken, at(21));
		});
		await expect(resumed).rejects.toBeInstanceOf(LeaseLostError);
		await expect(resumed).rejects.toMatchObject({ code: 'STATE_CONFLICT' });
		expect(await db.query('select * from applied_effects')).toEqual([]);
		// A retry or a failure under the lost lease changes nothing either.
		await markEventForRetry(db, paused[1], 'late', at(500));
		await markEventFailed(db, paused[1], 'failed', 'late', at(21));
		expect(await eventStates(db, ['evt_1', 'evt_2'])).toEqual(
			new Map([
				['evt_1', { state: 'pending', lastError: null }],
				['evt_2', { state: 'pending', lastError: null }]
			])
		);

		// The holder renews its lease past the first expiry, then marks what it processed.
		expect(
			await renewLease(
				db,
				taken.map((stored) => stored.seq),
				taker,
				at(30)
			)
		).toBe(2);
		expect(await claimDueEvents(db, 10, newLease(15_000), at(40))).toEqual([]);
		await markEventsProcessed(db, [taken[0].seq], taker.token, at(41));
		expect(await renewLease(db, [taken[0].seq], taker, at(42))).toBe(0);
		// Stopping, it gives back the rest, which another process claims at once.
		await releaseLease(db, [taken[1].seq], 'not-the-token');
		expect(await claimDueEvents(db, 10, newLease(15_000), at(43))).toEqual([]);
		await releaseLease(db, [taken[1].seq], taker.token);
		expect((await claimDueEvents(db, 10, newLease(15_000), at(43))).map((stored) => stored.eventId)).toEqual(['evt_2']);
		await expect(markEventsProcessed(db, [taken[0].seq], taker.token, at(44))).rejects.toBeInstanceOf(LeaseLostError);
	});

	it('without a lease (one process, PGlite), due events are read again until they are marked', async () => {
		const db = await databases.open();
		await storeWebhookEvents(db, [event('evt_1'), event('evt_2')], t0);
		const first = await claimDueEvents(db, 10, null, at(1));
		expect(first.map((stored) => [stored.eventId, stored.leaseToken])).toEqual([
			['evt_1', null],
			['evt_2', null]
		]);
		await markEventsProcessed(db, [first[0].seq], null, at(2));
		await markEventForRetry(db, first[1], 'later', at(50));
		expect(await claimDueEvents(db, 10, null, at(3))).toEqual([]);
		expect((await claimDueEvents(db, 10, null, at(50))).map((stored) => [stored.eventId, stored.processAttempts])).toEqual([['evt_2', 1]]);
	});

	it('a grant job is worked on by the holder of its lease: another process takes it once the lease ran out, and the old holder records nothing', async () => {
		const db = await databases.open();
		const agents = [{ agentKeyId: 'agk_new', publicKey: 'A'.repeat(43) }];
		await createGrantJob(db, { jobId: 'grj_1', rosterVersion: 2, agents }, t0);
		const first = newLease(15_000);
		expect((await claimGrantJob(db, first, at(1)))?.jobId).toBe('grj_1');
		expect(await claimGrantJob(db, newLease(15_000), at(2))).toBeNull();
		const items = ['conv_a', 'conv_b'].map((conversationId) => ({ conversationId, wrapForCompany: wrap }));
		await addGrantItems(db, 'grj_1', first.token, items, { cursor: null, listed: true }, at(3));
		expect(await renewGrantLease(db, 'grj_1', first, at(10))).toBe(true);
		expect(await claimGrantJob(db, newLease(15_000), at(20))).toBeNull();

		// The first process dies (or pauses) and its lease runs out: another process takes the job over.
		const second = newLease(15_000);
		expect((await claimGrantJob(db, second, at(26)))?.jobId).toBe('grj_1');
		expect(await renewGrantLease(db, 'grj_1', first, at(27))).toBe(false);
		const late = db.transaction((tx) => settleGrantItems(tx, 'grj_1', first.token, [{ conversationId: 'conv_a', error: null }], at(27)));
		await expect(late).rejects.toBeInstanceOf(LeaseLostError);
		await expect(addGrantItems(db, 'grj_1', first.token, items, { cursor: 'x', listed: false }, at(27))).rejects.toBeInstanceOf(
			LeaseLostError
		);
		expect(await finishGrantJob(db, 'grj_1', first.token, { state: 'done', lastError: null }, at(27))).toBeUndefined();
		expect(await getGrantJob(db, 'grj_1')).toMatchObject({ state: 'running', done: 0, listed: true });

		await db.transaction((tx) => settleGrantItems(tx, 'grj_1', second.token, [{ conversationId: 'conv_a', error: null }], at(28)));
		expect(await pendingGrantItems(db, 'grj_1', '', 10)).toEqual([items[1]]);
		// Stopping, the holder gives the job back: any process takes it at once.
		await releaseGrantJob(db, 'grj_1', first.token);
		expect(await claimGrantJob(db, newLease(15_000), at(29))).toBeNull();
		await releaseGrantJob(db, 'grj_1', second.token);
		const third = newLease(15_000);
		expect((await claimGrantJob(db, third, at(29)))?.jobId).toBe('grj_1');
		await db.transaction((tx) => settleGrantItems(tx, 'grj_1', third.token, [{ conversationId: 'conv_b', error: null }], at(30)));
		expect(await finishGrantJob(db, 'grj_1', third.token, { state: 'done', lastError: null }, at(31))).toMatchObject({
			state: 'done',
			done: 2
		});
		expect(await claimGrantJob(db, newLease(15_000), at(100))).toBeNull();
	});

	it('without a lease (one process, PGlite), the oldest running grant job not yet worked on in this pass is next', async () => {
		const db = await databases.open();
		const agents = [{ agentKeyId: 'agk_new', publicKey: 'A'.repeat(43) }];
		await createGrantJob(db, { jobId: 'grj_old', rosterVersion: 2, agents }, t0);
		await createGrantJob(db, { jobId: 'grj_new', rosterVersion: 3, agents }, at(1));
		expect((await claimGrantJob(db, null, at(2)))?.jobId).toBe('grj_old');
		expect((await claimGrantJob(db, null, at(2), ['grj_old']))?.jobId).toBe('grj_new');
		expect(await claimGrantJob(db, null, at(2), ['grj_old', 'grj_new'])).toBeNull();
		await db.transaction((tx) => settleGrantItems(tx, 'grj_old', null, [], at(3)));
		expect(await finishGrantJob(db, 'grj_old', null, { state: 'failed', lastError: 'stopped' }, at(4))).toMatchObject({ state: 'failed' });
		expect((await claimGrantJob(db, null, at(5)))?.jobId).toBe('grj_new');
	});

	it('an operation keeps its first idempotency key and request', async () => {
		const db = await databases.open();
		const first = await loadOrCreateOperation(
			db,
			{ operationKey: 'rewrap:c1', method: 'POST', pathAndQuery: '/v1/a', body: '{"x":1}' },
			t0
		);
		const again = await loadOrCreateOperation(
			db,
			{ operationKey: 'rewrap:c1', method: 'POST', pathAndQuery: '/v1/a', body: '{"x":2}' },
			t0
		);
		expect(again).toEqual(first);
		expect(first.idempotencyKey).toMatch(/^op_[A-Za-z0-9_-]{24}$/);
		expect(first.body).toBe('{"x":1}');
	});

	it('live events get increasing ids, are announced on commit, and are not seen when rolled back', async () => {
		const db = await databases.open();
		const heard: (string | null)[] = [];
		const stop = await db.listen(LIVE_CHANNEL, (payload) => heard.push(payload));
		const id1 = await db.transaction((tx) => appendLiveEvent(tx, 'conversation.changed', 'c1', { n: 1 }, t0));
		await expect(
			db.transaction(async (tx) => {
				await appendLiveEvent(tx, 'conversation.changed', 'c1', { n: 2 }, t0);
				throw new Error('roll back');
			})
		).rejects.toThrow('roll back');
		const id3 = await db.transaction((tx) => appendLiveEvent(tx, 'message.created', 'c1', { n: 3 }, t0));
		expect(id3).toBeGreaterThan(id1);
		expect((await liveEventsAfter(db, 0, 10)).map((live) => live.payload.n)).toEqual([1, 3]);
		await expect.poll(() => heard).toEqual([String(id1), String(id3)]);
		await stop();
	});

	it("an account's view: trust, status, unread count from its read pointer, and only its own wraps", async () => {
		const db = await databases.open();
		const ada = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'agent', passwordHash: 'h' }, t0);
		const withKey = await registerAgentKey(
			db,
			{ accountId: ada.accountId, agentKeyId: 'agk_ada00000', publicKey: 'PA', replace: false },
			t0
		);
		await ensureConversation(db, 'conv_1', 'pending', t0);
		expect(await getConversationView(db, withKey, 'conv_1')).toMatchObject({
			status: 'pending',
			trust: null,
			unreadCount: 0,
			agentWraps: []
		});

		await db.transaction(async (tx) => {
			await recordStart(
				tx,
				{
					conversationId: 'conv_1',
					status: 'active',
					trust: 'verified',
					wrapForCompany: wrap,
					userPublicKey: 'U',
					rewrapState: 'none',
					rewrapRequestedBy: null,
					startedEventAt: at(5)
				},
				at(5)
			);
			await storeAgentWraps(
				tx,
				'conv_1',
				[
					{ agentKeyId: 'agk_ada00000', rosterVersion: 1, wrap },
					{ agentKeyId: 'agk_bob00000', rosterVersion: 1, wrap }
				],
				at(5)
			);
			for (const seq of [1, 2, 3]) {
				await storeMessage(
					tx,
					{
						messageId: `msg_${seq}`,
						conversationId: 'conv_1',
						seq,
						senderType: 'user',
						contentType: 'text',
						encryption: envelope,
						attachment: null,
						createdAt: at(10 + seq).toISOString()
					},
					`evt_${seq}`
				);
			}
		});
		expect(
			await storeMessage(
				db,
				{
					messageId: 'msg_1',
					conversationId: 'conv_1',
					seq: 1,
					senderType: 'user',
					contentType: 'text',
					encryption: envelope,
					attachment: null,
					createdAt: t0.toISOString()
				},
				null
			)
		).toBe(false);
		// sealed for Ada's key, but no roster holds it yet: she sees that the conversation exists, nothing more
		expect(await getConversationView(db, withKey, 'conv_1')).toMatchObject({
			status: 'active',
			trust: 'verified',
			readable: false,
			unreadCount: 0,
			agentWraps: []
		});
		await storeRoster(db, {
			rosterVersion: 1,
			issuedAt: '2026-11-22T10:00:00Z',
			agents: [{ agentKeyId: 'agk_ada00000', publicKey: 'PA' }],
			signature: 'S',
			uploadedBy: null,
			uploadedAt: t0
		});
		expect(await getConversationView(db, withKey, 'conv_1')).toMatchObject({
			status: 'active',
			trust: 'verified',
			readable: true,
			unreadCount: 3,
			startedAt: '2026-11-22T10:00:05Z',
			agentWraps: [{ agentKeyId: 'agk_ada00000', rosterVersion: 1, wrap }]
		});
		expect(await markReadUpTo(db, ada.accountId, 'conv_1', 'msg_2', at(20))).toBe(true);
		expect(await markReadUpTo(db, ada.accountId, 'conv_1', 'msg_1', at(21))).toBe(true);
		expect(await markReadUpTo(db, ada.accountId, 'conv_1', 'msg_unknown', at(21))).toBe(false);
		expect((await getConversationView(db, withKey, 'conv_1'))?.unreadCount).toBe(1);
		expect((await listStoredMessages(db, 'conv_1', 1, 1)).messages.map((message) => message.messageId)).toEqual(['msg_2']);
		const withoutSeq = { messageId: 'msg_noseq', conversationId: 'conv_1', seq: null, senderType: 'user', contentType: 'text' } as const;
		await storeMessage(db, { ...withoutSeq, encryption: envelope, attachment: null, createdAt: at(14).toISOString() }, 'evt_noseq');
		const firstPage = await listStoredMessages(db, 'conv_1', 0, 10);
		expect(firstPage.messages.map((message) => message.messageId)).toEqual(['msg_noseq', 'msg_1', 'msg_2', 'msg_3']);
		expect((await listStoredMessages(db, 'conv_1', 3, 10)).messages).toEqual([]);

		await updateStatus(db, 'conv_1', { status: 'closed' }, at(30));
		expect((await getConversationView(db, withKey, 'conv_1'))?.closedAt).toBe('2026-11-22T10:00:30Z');
	});

	it('the list pages by last activity and filters by status and trust', async () => {
		const db = await databases.open();
		const ada = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'agent', passwordHash: 'h' }, t0);
		for (let i = 1; i <= 5; i++) await ensureConversation(db, `conv_${i}`, i % 2 ? 'pending' : 'active', at(i));
		const first = await listConversationViews(db, ada, { limit: 2 });
		expect(first.views.map((view) => view.conversationId)).toEqual(['conv_5', 'conv_4']);
		expect(first.hasMore).toBe(true);
		expect(first.nextAfter).toEqual({ lastActivityAt: '2026-11-22T10:00:04.000000Z', conversationId: 'conv_4' });
		const second = await listConversationViews(db, ada, { limit: 10, after: first.nextAfter });
		expect(second.views.map((view) => view.conversationId)).toEqual(['conv_3', 'conv_2', 'conv_1']);
		expect([second.hasMore, second.nextAfter]).toEqual([false, undefined]);
		expect((await listConversationViews(db, ada, { limit: 10, status: 'active' })).views.map((view) => view.conversationId)).toEqual([
			'conv_4',
			'conv_2'
		]);
		expect((await listConversationViews(db, ada, { limit: 10, trust: 'verified' })).views).toEqual([]);
	});

	it('pages through conversations active within the same second without skipping one', async () => {
		const db = await databases.open();
		const ada = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'agent', passwordHash: 'h' }, t0);
		// the view shows each at 10:00:01; their order is by the millisecond, which the cursor keeps
		const within = { conv_z: 100, conv_y: 400, conv_x: 700, conv_a: 900 };
		for (const [conversationId, ms] of Object.entries(within))
			await ensureConversation(db, conversationId, 'active', new Date(at(1).getTime() + ms));
		const listed: string[] = [];
		let after: Awaited<ReturnType<typeof listConversationViews>>['nextAfter'];
		do {
			const page = await listConversationViews(db, ada, { limit: 1, after });
			listed.push(...page.views.map((view) => view.conversationId));
			after = page.nextAfter;
		} while (after);
		expect(listed).toEqual(['conv_a', 'conv_x', 'conv_y', 'conv_z']);
	});
});
