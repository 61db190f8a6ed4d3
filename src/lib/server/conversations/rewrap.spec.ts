/**
 * The rewrap after a re-invitation in process (contract 6.4; docs/threat-model.md "A lone admin"),
 * against the simulator: a verified re-invitation is rewrapped at once and the customer's new phone
 * opens K; an unverified one waits for an approval, with the second-person policy from someone else who
 * already had their role; never after BINDING_INVALID; transient failures wait longer each time.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Customer, withForeignSecret } from '$test-support/customer';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { recordingLogger } from '$test-support/loggers';
import { applyLatestStart, conversationServices, useSimCompany } from '$test-support/sim-company';
import { b64uEncode, generateX25519KeyPair, isoSeconds } from '../../crypto/index';
import { createAccount, registerAgentKey, type Account } from '../db/accounts';
import { listAuditEntries } from '../db/audit';
import { ensureConversation, lockConversation, setRewrapState } from '../db/conversations';
import type { Database } from '../db/database';
import { liveEventsAfter } from '../db/live-events';
import { storeRoster } from '../db/rosters';
import { updateSettings } from '../db/settings';
import { createInvitation } from './invitations';
import { RewrapWorker, type ConversationServices } from './rewrap';

const service = useSimCompany();

/** How the customer's new phone answers the re-invitation. */
type Answer = 'link' | 'short code' | 'foreign link';

/** A team on a fresh database: Grace, an admin from the command line; Ada, an agent of roster 1; the services. */
function team(databases: ReturnType<typeof useDatabases>, serviceUrl: () => string) {
	const recorded = recordingLogger();
	const t = {
		db: undefined as unknown as Database,
		services: undefined as unknown as ConversationServices,
		worker: undefined as unknown as RewrapWorker,
		grace: undefined as unknown as Account,
		ada: undefined as unknown as Account,
		recorded,
		/** Another fresh database of the backend. */
		open: () => databases.open(),
		/** The inbox's clock: a second later at each step that records when. */
		clock: Date.now() - 3_600_000,
		async agent(name: string, rosterVersion: number | null, uploadedAt = new Date(t.clock)): Promise<Account> {
			const entry = {
				agentKeyId: `agk_${b64uEncode(generateX25519KeyPair().publicKey).slice(0, 10)}`,
				publicKey: b64uEncode(generateX25519KeyPair().publicKey)
			};
			const created = await createAccount(t.db, { username: name, displayName: name, role: 'agent', passwordHash: 'h' }, new Date(t.clock));
			const account = await registerAgentKey(t.db, { accountId: created.accountId, ...entry, replace: false }, new Date(t.clock));
			if (rosterVersion !== null) {
				const roster = { rosterVersion, issuedAt: isoSeconds(uploadedAt), signature: 'S', uploadedBy: null, uploadedAt };
				await storeRoster(t.db, { ...roster, agents: [entry] });
			}
			return account;
		},
		/** A conversation a customer joined, then answered a re-invitation of `by` on a new phone; the inbox told of both. */
		async awaitingKey(by: Account, answer: Answer) {
			const { sim, company } = service;
			const first = await createInvitation(t.services, { account: by });
			const customer = await Customer.redeem(sim.url, { link: first.link });
			const conversationId = customer.conversationId;
			await applyLatestStart(sim, company.companyId, t.db, conversationId, new Date((t.clock += 1000)));
			const requestedAt = (t.clock += 1000);
			const again = await createInvitation(t.services, { account: by, conversationId });
			const answers = {
				link: { link: again.link },
				'short code': { shortCode: again.shortCode },
				'foreign link': { link: withForeignSecret(again.link) }
			};
			await customer.changeDevice(answers[answer]);
			await applyLatestStart(sim, company.companyId, t.db, conversationId, new Date((t.clock += 1000)));
			return { conversationId, customer, requestedAt };
		},
		async state(conversationId: string) {
			const [row] = await t.db.query<{
				status: string;
				rewrap_state: string;
				rewrap_error: string | null;
				rewrap_attempts: number;
				rewrap_next_attempt_at: Date | null;
				rewrap_confirmed_by: string | null;
			}>(
				`select status, rewrap_state, rewrap_error, rewrap_attempts, rewrap_next_attempt_at, rewrap_confirmed_by
				 from conversations where conversation_id = $1`,
				[conversationId]
			);
			return { ...row, rewrap_next_attempt_at: row.rewrap_next_attempt_at && new Date(row.rewrap_next_attempt_at).getTime() };
		},
		/** How many changes of the conversation the live streams were told of, each naming it. */
		async changes(conversationId: string) {
			const events = (await liveEventsAfter(t.db, 0, 10_000)).filter((event) => event.conversationId === conversationId);
			expect(events.map(({ type, payload }) => ({ type, payload }))).toEqual(
				events.map(() => ({ type: 'conversation.changed', payload: { conversationId } }))
			);
			return events.length;
		}
	};
	beforeAll(async () => {
		t.db = await databases.open();
		t.services = conversationServices(service, t.db, serviceUrl(), () => t.clock, recorded.log);
		t.worker = new RewrapWorker(t.services);
		t.grace = await createAccount(t.db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, new Date(t.clock));
		t.ada = await t.agent('ada', 1);
		await updateSettings(t.db, { reinviteRewrap: 'automatic' }, t.grace, new Date(t.clock));
	}, 60_000);
	return t;
}

describe.each(BACKENDS)('rewraps after a re-invitation on %s (contract 6.4)', (backend) => {
	const t = team(useDatabases(backend), () => service.sim.url);
	const refusal = (code: string, message: string) => expect.objectContaining({ code, message });

	it('rewraps a verified re-invitation at once with the automatic policy: the new phone opens K', async () => {
		const { conversationId, customer } = await t.awaitingKey(t.ada, 'link');
		expect(await t.state(conversationId)).toMatchObject({ status: 'awaiting_key', rewrap_state: 'queued' });
		const before = await t.changes(conversationId);
		expect(await t.worker.rewrap(conversationId)).toBe('done');
		expect(await t.state(conversationId)).toMatchObject({ status: 'active', rewrap_state: 'done', rewrap_error: null });
		expect(await t.changes(conversationId)).toBe(before + 1);
		expect(t.recorded.lines).toContainEqual({
			level: 'info',
			message: 'rewrap done',
			fields: { conversation: conversationId, reason: undefined }
		});
		expect((await customer.view()).status).toBe('active');
		await customer.say('my new phone');
		expect((await customer.messages()).map((message: { text?: string }) => message.text)).toContain('my new phone');

		// once done, nothing is tried again; an unknown conversation is no rewrap
		expect(await t.worker.rewrap(conversationId)).toBe('done');
		expect(await t.worker.rewrap('conv_unknown00')).toBe('failed');
		expect(await t.changes(conversationId)).toBe(before + 1);
	});

	it('runs the due rewraps when started, leaves the ones not due yet, and stops after them', async () => {
		const due = await t.awaitingKey(t.ada, 'link');
		const later = await t.awaitingKey(t.ada, 'link');
		await t.db.transaction((tx) =>
			setRewrapState(tx, later.conversationId, { state: 'queued', nextAttemptAt: new Date(t.clock + 60_000) }, new Date(t.clock))
		);
		const worker = new RewrapWorker(t.services);
		worker.start();
		await worker.stop();
		expect((await t.state(due.conversationId)).rewrap_state).toBe('done');
		expect((await t.state(later.conversationId)).rewrap_state).toBe('queued');
	});

	it('waits for an approval of an unverified re-invitation (a short code), recorded with who approved', async () => {
		const { conversationId } = await t.awaitingKey(t.ada, 'short code');
		expect((await t.state(conversationId)).rewrap_state).toBe('needs_confirmation');
		expect(await t.worker.rewrap(conversationId)).toBe('failed');
		expect((await t.state(conversationId)).rewrap_state).toBe('needs_confirmation');
		// no second person is needed by the automatic policy: who re-invited may approve
		expect(await t.worker.confirm(t.ada, conversationId)).toBe('done');
		// two invitations, the approval's queueing and the rewrap
		expect(await t.changes(conversationId)).toBe(4);
		const approver = { approverRole: 'agent', roleSince: isoSeconds(t.ada.roleSince) };
		expect(await t.state(conversationId)).toMatchObject({ status: 'active', rewrap_state: 'done', rewrap_confirmed_by: t.ada.accountId });
		const [event] = await t.db.query<{ kind: string; actor_account_id: string; details: object }>(
			"select kind, actor_account_id, details from conversation_events where conversation_id = $1 and kind = 'rewrap_approved'",
			[conversationId]
		);
		expect(event).toEqual({ kind: 'rewrap_approved', actor_account_id: t.ada.accountId, details: approver });
		const audited = (await listAuditEntries(t.db, { action: 'rewrap.approved', limit: 100 })).filter(
			(entry) => entry.target === conversationId
		);
		expect(audited.map(({ actorId, details }) => ({ actorId, details }))).toEqual([{ actorId: t.ada.accountId, details: approver }]);
	});

	it('with the second-person policy, takes the approval of someone else who had their role when it was asked for', async () => {
		await updateSettings(t.db, { reinviteRewrap: 'second_person' }, t.grace, new Date(t.clock));
		try {
			const bob = await t.agent('bob', 2);
			const { conversationId, requestedAt } = await t.awaitingKey(bob, 'link');
			expect((await t.state(conversationId)).rewrap_state).toBe('needs_confirmation');
			await expect(t.worker.confirm(bob, conversationId)).rejects.toEqual(
				refusal('SECOND_PERSON_REQUIRED', 'you re-invited this customer: another agent with access, or an admin, must approve the rewrap')
			);
			t.clock += 1000;
			const lateAdmin = await createAccount(
				t.db,
				{ username: 'hal', displayName: 'Hal', role: 'admin', passwordHash: 'h' },
				new Date(t.clock)
			);
			await expect(t.worker.confirm(lateAdmin, conversationId)).rejects.toEqual(
				refusal(
					'SECOND_PERSON_REQUIRED',
					'you became an admin after this re-invitation was asked for: someone who already was, or an agent with access since then, must approve'
				)
			);
			const agentRefusal = refusal(
				'SECOND_PERSON_REQUIRED',
				'your key joined the roster after this re-invitation was asked for: someone who already had access then must approve'
			);
			await expect(t.worker.confirm(await t.agent('late', 3), conversationId)).rejects.toEqual(agentRefusal);
			await expect(t.worker.confirm(await t.agent('rosterless', null), conversationId)).rejects.toEqual(agentRefusal);
			expect((await t.state(conversationId)).rewrap_state).toBe('needs_confirmation');

			// an admin since the very moment it was asked for already was one
			const kim = await createAccount(
				t.db,
				{ username: 'kim', displayName: 'Kim', role: 'admin', passwordHash: 'h' },
				new Date(requestedAt)
			);
			expect(await t.worker.confirm(kim, conversationId)).toBe('done');
			const [event] = await t.db.query<{ details: object }>(
				"select details from conversation_events where conversation_id = $1 and kind = 'rewrap_approved'",
				[conversationId]
			);
			expect(event.details).toEqual({ approverRole: 'admin', roleSince: isoSeconds(requestedAt), roleGrantedBy: 'the command line' });

			// approved by another, then failed: who re-invited may have it tried again
			const retried = await t.awaitingKey(bob, 'link');
			expect(await t.worker.confirm(t.grace, retried.conversationId)).toBe('done');
			await t.db.query("update conversations set status = 'awaiting_key' where conversation_id = $1", [retried.conversationId]);
			await t.db.transaction((tx) => setRewrapState(tx, retried.conversationId, { state: 'failed' }, new Date(t.clock)));
			expect(await t.worker.confirm(bob, retried.conversationId)).toBe('done');
		} finally {
			await updateSettings(t.db, { reinviteRewrap: 'automatic' }, t.grace, new Date(t.clock));
		}
	});

	it('names who made an approving admin one, or that the account is gone', async () => {
		const granted = (username: string, grantedBy: string) =>
			createAccount(t.db, { username, displayName: username, role: 'admin', passwordHash: 'h', grantedBy }, new Date(t.clock));
		const [ivy, jon] = [await granted('ivy', t.grace.accountId), await granted('jon', 'acc_removed000')];
		for (const [admin, roleGrantedBy] of [
			[ivy, 'Grace'],
			[jon, 'a removed account']
		] as const) {
			const { conversationId } = await t.awaitingKey(t.ada, 'short code');
			expect(await t.worker.confirm(admin, conversationId)).toBe('done');
			const [event] = await t.db.query<{ details: object }>(
				"select details from conversation_events where conversation_id = $1 and kind = 'rewrap_approved'",
				[conversationId]
			);
			expect(event.details).toEqual({ approverRole: 'admin', roleSince: isoSeconds(admin.roleSince), roleGrantedBy });
		}
	});

	it('takes any approver when nobody knows when the rewrap was asked for', async () => {
		const { conversationId } = await t.awaitingKey(t.ada, 'link');
		await t.db.transaction((tx) => setRewrapState(tx, conversationId, { state: 'needs_confirmation' }, new Date(t.clock)));
		const newcomer = await t.agent('newcomer', null);
		expect(await t.worker.confirm(newcomer, conversationId)).toBe('done');
		const [event] = await t.db.query<{ details: object }>(
			"select details from conversation_events where conversation_id = $1 and kind = 'rewrap_approved'",
			[conversationId]
		);
		expect(event.details).toEqual({ approverRole: 'agent', roleSince: isoSeconds(newcomer.roleSince) });
	});

	it('never rewraps after BINDING_INVALID, whatever the rewrap state says since', async () => {
		const { conversationId } = await t.awaitingKey(t.ada, 'foreign link');
		const bindingInvalid = refusal(
			'BINDING_INVALID',
			"the customer's new key failed the invitation binding: send a new re-invitation instead"
		);
		expect(await t.state(conversationId)).toMatchObject({ status: 'awaiting_key', rewrap_state: 'blocked' });
		await expect(t.worker.confirm(t.grace, conversationId)).rejects.toEqual(bindingInvalid);
		await expect(t.worker.confirm(t.grace, conversationId)).rejects.toMatchObject({ status: 409 });
		expect(await t.worker.rewrap(conversationId)).toBe('failed');
		await t.db.transaction((tx) => setRewrapState(tx, conversationId, { state: 'failed' }, new Date(t.clock)));
		await expect(t.worker.confirm(t.grace, conversationId)).rejects.toEqual(bindingInvalid);

		// blocked, with a trust that verified
		const verified = await t.awaitingKey(t.ada, 'link');
		await t.db.transaction((tx) => setRewrapState(tx, verified.conversationId, { state: 'blocked' }, new Date(t.clock)));
		await expect(t.worker.confirm(t.grace, verified.conversationId)).rejects.toEqual(bindingInvalid);
		expect((await t.state(verified.conversationId)).rewrap_state).toBe('blocked');
	});

	it('confirms only a conversation awaiting a key whose rewrap is waiting, queued or failed', async () => {
		await expect(t.worker.confirm(t.grace, 'conv_unknown00')).rejects.toEqual(refusal('NOT_FOUND', 'no conversation conv_unknown00'));
		const notAwaiting = refusal('CONVERSATION_NOT_AWAITING_KEY', 'the conversation is not waiting for a rewrap');
		const { conversationId } = await t.awaitingKey(t.ada, 'link');
		for (const rewrapState of ['none', 'done'] as const) {
			await t.db.transaction((tx) => setRewrapState(tx, conversationId, { state: rewrapState }, new Date(t.clock)));
			await expect(t.worker.confirm(t.grace, conversationId)).rejects.toEqual(notAwaiting);
		}
		await t.db.query("update conversations set status = 'active', rewrap_state = 'queued' where conversation_id = $1", [conversationId]);
		await expect(t.worker.confirm(t.grace, conversationId)).rejects.toEqual(notAwaiting);

		// queued, awaiting the key: confirming tries it at once, and asks for no approval
		await t.db.query("update conversations set status = 'awaiting_key' where conversation_id = $1", [conversationId]);
		expect(await t.worker.confirm(t.ada, conversationId)).toBe('done');
		expect(await t.state(conversationId)).toMatchObject({ rewrap_state: 'done', rewrap_confirmed_by: t.ada.accountId });
		expect(
			await t.db.query("select 1 from conversation_events where conversation_id = $1 and kind = 'rewrap_approved'", [conversationId])
		).toEqual([]);
	});

	it('fails when no company key opens the wrap, opens it with a previous key, and retries a failed one when confirmed', async () => {
		const { conversationId } = await t.awaitingKey(t.ada, 'link');
		const other = { ...generateX25519KeyPair(), keyVersion: 2 };
		const keys = service.companyKeys;
		const rotated = (previous: (typeof keys.current)[]) =>
			new RewrapWorker({ ...t.services, companyKeys: async () => ({ ...keys, current: other, previous }) });
		expect(await rotated([]).rewrap(conversationId)).toBe('failed');
		const failed = await t.state(conversationId);
		expect(failed.rewrap_state).toBe('failed');
		expect(failed.rewrap_error).toMatch(/^the company wrap does not open: /);
		await expect(rotated([]).confirm(t.ada, conversationId)).resolves.toBe('failed');
		expect(await rotated([keys.current]).confirm(t.ada, conversationId)).toBe('done');
		expect(await t.state(conversationId)).toMatchObject({ status: 'active', rewrap_state: 'done', rewrap_error: null });
	});

	it('fails a queued rewrap of a conversation with no company wrap or customer key', async () => {
		await ensureConversation(t.db, 'conv_bare00000', 'awaiting_key', new Date(t.clock));
		await t.db.transaction((tx) => setRewrapState(tx, 'conv_bare00000', { state: 'queued' }, new Date(t.clock)));
		expect(await t.worker.rewrap('conv_bare00000')).toBe('failed');
		expect(await t.state('conv_bare00000')).toMatchObject({
			status: 'awaiting_key',
			rewrap_state: 'failed',
			rewrap_error: 'no company wrap or user key is known for this conversation'
		});
		expect(await t.db.transaction((tx) => lockConversation(tx, 'conv_bare00000'))).toMatchObject({ rewrapAttempts: 0 });
		expect(t.recorded.lines).toContainEqual({
			level: 'error',
			message: 'rewrap failed',
			fields: { conversation: 'conv_bare00000', reason: 'no company wrap or user key is known for this conversation' }
		});
	});

	it('fails a rewrap whose stored customer key does not decode, naming it', async () => {
		const { conversationId } = await t.awaitingKey(t.ada, 'link');
		await t.db.query("update conversations set user_public_key = 'not b64u!' where conversation_id = $1", [conversationId]);
		expect(await t.worker.rewrap(conversationId)).toBe('failed');
		expect((await t.state(conversationId)).rewrap_error).toMatch(/^the company wrap does not open: .*userPublicKey/);
	});

	it('looks for due rewraps every five seconds until stopped', async () => {
		vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
		try {
			const worker = new RewrapWorker(t.services);
			worker.start();
			// queued after the first look
			const seen = await t.awaitingKey(t.ada, 'link');
			vi.advanceTimersByTime(5_000);
			await worker.stop();
			expect((await t.state(seen.conversationId)).rewrap_state).toBe('done');
			const after = await t.awaitingKey(t.ada, 'link');
			vi.advanceTimersByTime(5_000);
			await worker.stop();
			expect((await t.state(after.conversationId)).rewrap_state).toBe('queued');
		} finally {
			vi.useRealTimers();
		}
	});
});

describe('a rewrap the service does not take at once (contract 6.4)', () => {
	const t = team(useDatabases('PGlite'), () => service.front.url);
	const answer = (conversationId: string, status: number, code: string) =>
		service.front.answerPath(`/v1/conversations/${conversationId}/rewrap`, {
			status,
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ error: { code, message: `answered ${code}` } })
		});

	it('queues a transient failure again, waiting longer each time up to ten minutes', async () => {
		const { conversationId } = await t.awaitingKey(t.ada, 'link');
		answer(conversationId, 503, 'UPSTREAM_UNAVAILABLE');
		for (const [attempts, delay] of [
			[1, 10_000],
			[2, 20_000],
			[3, 40_000]
		]) {
			t.clock += 1000;
			expect(await t.worker.rewrap(conversationId)).toBe('queued');
			const state = await t.state(conversationId);
			expect(state).toMatchObject({ status: 'awaiting_key', rewrap_state: 'queued', rewrap_attempts: attempts });
			expect(state.rewrap_next_attempt_at).toBe(t.clock + delay);
			expect(state.rewrap_error).toContain('answered UPSTREAM_UNAVAILABLE');
		}
		// two invitations and the three retries
		expect(await t.changes(conversationId)).toBe(5);
		await t.db.transaction((tx) => setRewrapState(tx, conversationId, { state: 'queued', attempts: 6 }, new Date(t.clock)));
		expect(await t.worker.rewrap(conversationId)).toBe('queued');
		expect((await t.state(conversationId)).rewrap_next_attempt_at).toBe(t.clock + 600_000);
	});

	it('fails on a refusal, and counts a conversation no longer awaiting its key as rewrapped', async () => {
		const refused = await t.awaitingKey(t.ada, 'link');
		answer(refused.conversationId, 400, 'INVALID_REQUEST');
		expect(await t.worker.rewrap(refused.conversationId)).toBe('failed');
		expect(await t.state(refused.conversationId)).toMatchObject({ status: 'awaiting_key', rewrap_state: 'failed' });
		expect((await t.state(refused.conversationId)).rewrap_error).toContain('answered INVALID_REQUEST');

		const already = await t.awaitingKey(t.ada, 'link');
		answer(already.conversationId, 409, 'CONVERSATION_NOT_AWAITING_KEY');
		expect(await t.worker.rewrap(already.conversationId)).toBe('done');
		expect(await t.state(already.conversationId)).toMatchObject({ status: 'active', rewrap_state: 'done', rewrap_error: null });
	});

	it('pauses, and says why, when the database cannot be read', async () => {
		const closed = await t.open();
		await closed.close();
		const worker = new RewrapWorker({ ...t.services, db: closed });
		worker.start();
		await worker.stop();
		expect(t.recorded.messages('warn')).toContain('rewraps paused');
	});
});
