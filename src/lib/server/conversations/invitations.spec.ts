/**
 * Invitations and re-invitations in process (docs/inbox-api.md §5), against the simulator: the link
 * carries the stored secret and the company key's fingerprint, a retried request replays the same
 * invitation without a second audit entry, a re-invitation is a conversation event, and only who made a
 * pending invitation, or an admin, shows its link again or revokes it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Customer } from '$test-support/customer';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { quietLogger } from '$test-support/loggers';
import { useSimCompany } from '$test-support/sim-company';
import { b64uDecode, buildInviteLink } from '../../crypto/index';
import { createAccount, type Account } from '../db/accounts';
import { listAuditEntries } from '../db/audit';
import type { Database } from '../db/database';
import { storeInviteSecret } from '../db/invites';
import { liveEventsAfter } from '../db/live-events';
import type { ServiceDeps } from '../deps';
import { UpstreamClient } from '../upstream/client';
import { createInvitation, MAX_INVITE_SECONDS, MIN_INVITE_SECONDS, readExpiresIn, revokeInvitation, showInvitation } from './invitations';

const service = useSimCompany();

describe('expiresIn of a request body (contract-gaps §6)', () => {
	it('is absent, or a whole number of seconds from a minute to thirty days', () => {
		expect(readExpiresIn({})).toBeUndefined();
		expect(readExpiresIn({ expiresIn: MIN_INVITE_SECONDS })).toBe(60);
		expect(readExpiresIn({ expiresIn: MAX_INVITE_SECONDS })).toBe(2_592_000);
		for (const expiresIn of [59, 2_592_001, 600.5, '600', null, Number.NaN]) {
			expect(() => readExpiresIn({ expiresIn })).toThrow(
				expect.objectContaining({ code: 'INVALID_REQUEST', message: 'expiresIn must be an integer from 60 to 2592000 seconds' })
			);
		}
	});
});

describe.each(BACKENDS)('invitations on %s (docs/inbox-api.md §5)', (backend) => {
	const databases = useDatabases(backend);
	let db: Database;
	let deps: ServiceDeps;
	let ada: Account;
	let bob: Account;
	let grace: Account;
	let clock = Date.now();

	beforeAll(async () => {
		db = await databases.open();
		const { company, sim, companyKeys } = service;
		const upstream = new UpstreamClient({ baseUrl: sim.url, apiKey: company.apiKey, signingSecret: company.webhookSecret, db });
		deps = { db, upstream, companyKeys: async () => companyKeys, now: () => clock, log: quietLogger };
		const account = (username: string, role: 'agent' | 'admin') =>
			createAccount(db, { username, displayName: username, role, passwordHash: 'h' }, new Date(clock));
		[ada, bob, grace] = [await account('ada', 'agent'), await account('bob', 'agent'), await account('grace', 'admin')];
	}, 60_000);

	/** The stored row of an invitation, or undefined once it is gone. */
	async function stored(inviteId: string) {
		const [row] = await db.query<{ kind: string; conversation_id: string; secret: string; created_by: string; expires_at: Date }>(
			'select kind, conversation_id, secret, created_by, expires_at from invite_secrets where invite_id = $1',
			[inviteId]
		);
		return row;
	}

	const audits = async (action: string) =>
		(await listAuditEntries(db, { action, limit: 100 })).map(({ actorId, target, details }) => ({ actorId, target, details }));
	/** The live streams' events about the conversation: each says it changed, naming it. */
	const changes = async (conversationId: string) =>
		(await liveEventsAfter(db, 0, 10_000))
			.filter((event) => event.conversationId === conversationId)
			.map((event) => `${event.type} ${JSON.stringify(event.payload)}`);
	const changed = (conversationId: string, times: number) =>
		Array.from({ length: times }, () => `conversation.changed ${JSON.stringify({ conversationId })}`);
	/** The keys the service's operations are stored under: a retry, also after a restart, finds its own. */
	const operationKeys = async () =>
		(await db.query<{ operation_key: string }>('select operation_key from outgoing_operations')).map((row) => row.operation_key);
	const conversationEvents = async (conversationId: string) =>
		(
			await db.query<{ kind: string; actor_id: string }>(
				'select kind, actor_account_id as actor_id from conversation_events where conversation_id = $1',
				[conversationId]
			)
		).map((row) => ({ kind: row.kind, actorId: row.actor_id }));

	it('makes an invitation whose link carries the stored secret and the company key, once per request', async () => {
		const invitation = await createInvitation(deps, { account: ada, idempotencyKey: 'first' });
		const row = await stored(invitation.inviteId);
		expect(row).toMatchObject({ kind: 'invite', conversation_id: invitation.conversationId, created_by: ada.accountId });
		expect(new Date(row.expires_at).getTime()).toBe(Date.parse(invitation.expiresAt));
		expect(invitation.link).toBe(
			buildInviteLink(invitation.inviteUrl, b64uDecode(row.secret, 'secret'), service.companyKeys.current.publicKey)
		);
		const [conversation] = await db.query<{ status: string }>('select status from conversations where conversation_id = $1', [
			invitation.conversationId
		]);
		expect(conversation.status).toBe('pending');
		const created = [{ actorId: ada.accountId, target: invitation.inviteId, details: { conversationId: invitation.conversationId } }];
		expect(await audits('invitation.created')).toEqual(created);
		expect(await changes(invitation.conversationId)).toEqual(changed(invitation.conversationId, 1));

		// the same request again: the same invitation and secret, nothing recorded twice
		expect(await createInvitation(deps, { account: ada, idempotencyKey: 'first' })).toEqual(invitation);
		expect(await audits('invitation.created')).toEqual(created);
		expect(await changes(invitation.conversationId)).toEqual(changed(invitation.conversationId, 1));

		expect(await operationKeys()).toContain(`invite:${ada.accountId}::first`);

		// the customer's app takes the link: its fingerprint is the company's key
		const customer = await Customer.redeem(service.sim.url, { link: invitation.link });
		expect(customer.conversationId).toBe(invitation.conversationId);
	});

	it('keeps the requests of different accounts, and those without a key, apart', async () => {
		const ids = [
			await createInvitation(deps, { account: ada, idempotencyKey: 'shared' }),
			await createInvitation(deps, { account: bob, idempotencyKey: 'shared' }),
			await createInvitation(deps, { account: ada }),
			await createInvitation(deps, { account: ada })
		].map((invitation) => invitation.inviteId);
		expect(new Set(ids).size).toBe(4);
	});

	it('asks the service for the expiry given, and keeps the secret until then', async () => {
		const before = Date.now();
		const invitation = await createInvitation(deps, { account: ada, expiresIn: 3600 });
		const expiresAt = Date.parse(invitation.expiresAt);
		expect(expiresAt).toBeGreaterThanOrEqual(before + 3_599_000);
		expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
		expect(new Date((await stored(invitation.inviteId)).expires_at).getTime()).toBe(expiresAt);
	});

	it('re-invites a known conversation: a reinvite secret, the thread’s event and the audit entry, once', async () => {
		const first = await createInvitation(deps, { account: ada });
		await Customer.redeem(service.sim.url, { link: first.link });
		const conversationId = first.conversationId;
		const before = Date.now();
		const again = await createInvitation(deps, { account: bob, conversationId, expiresIn: 3600, idempotencyKey: 'again' });
		expect(Date.parse(again.expiresAt)).toBeGreaterThanOrEqual(before + 3_599_000);
		expect(Date.parse(again.expiresAt)).toBeLessThanOrEqual(Date.now() + 3_600_000);
		expect(await operationKeys()).toContain(`reinvite:${bob.accountId}:${conversationId}:again`);
		expect(again.conversationId).toBe(conversationId);
		expect(again.inviteId).not.toBe(first.inviteId);
		expect(await stored(again.inviteId)).toMatchObject({ kind: 'reinvite', conversation_id: conversationId, created_by: bob.accountId });
		const reinvited = [{ actorId: bob.accountId, target: conversationId, details: { inviteId: again.inviteId } }];
		const expected = async () => {
			expect((await audits('conversation.reinvited')).filter((entry) => entry.target === conversationId)).toEqual(reinvited);
			expect(await conversationEvents(conversationId)).toEqual([{ kind: 'reinvited', actorId: bob.accountId }]);
			expect(await changes(conversationId)).toEqual(changed(conversationId, 2));
			expect((await audits('invitation.created')).filter((entry) => entry.target === again.inviteId)).toEqual([]);
		};
		await expected();
		expect(await createInvitation(deps, { account: bob, conversationId, expiresIn: 3600, idempotencyKey: 'again' })).toEqual(again);
		await expected();

		// the same key for another conversation is another request
		const other = await createInvitation(deps, { account: ada });
		await Customer.redeem(service.sim.url, { shortCode: other.shortCode });
		const otherAgain = await createInvitation(deps, { account: bob, conversationId: other.conversationId, idempotencyKey: 'again' });
		expect(otherAgain.conversationId).toBe(other.conversationId);
	});

	it('shows a pending link again to who made it and to an admin only, each time audited', async () => {
		const invitation = await createInvitation(deps, { account: ada });
		expect(await showInvitation(deps, ada, invitation.inviteId)).toEqual(invitation);
		expect(await showInvitation(deps, grace, invitation.inviteId)).toEqual(invitation);
		await expect(showInvitation(deps, bob, invitation.inviteId)).rejects.toMatchObject({
			code: 'FORBIDDEN',
			message: 'only who made this invitation, or an admin, may show its link or revoke it'
		});
		expect((await audits('invitation.link_shown')).filter((entry) => entry.target === invitation.inviteId)).toEqual(
			[grace, ada].map((account) => ({
				actorId: account.accountId,
				target: invitation.inviteId,
				details: { conversationId: invitation.conversationId }
			}))
		);
		await expect(showInvitation(deps, ada, 'inv_unknown000')).rejects.toMatchObject({
			code: 'NOT_FOUND',
			message: 'no pending invitation inv_unknown000'
		});
	});

	it('does not show an expired invitation, one stored without its link, nor one whose stored secret does not decode', async () => {
		const invitation = await createInvitation(deps, { account: ada, expiresIn: 60 });
		clock = Date.parse(invitation.expiresAt);
		await expect(showInvitation(deps, ada, invitation.inviteId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
		clock = Date.now();
		const old = { inviteId: 'inv_linkless00', conversationId: 'conv_linkless0', kind: 'invite' as const, secret: 'A'.repeat(43) };
		await storeInviteSecret(db, { ...old, createdBy: ada.accountId, expiresAt: new Date(clock + 60_000) }, new Date(clock));
		await expect(showInvitation(deps, ada, old.inviteId)).rejects.toMatchObject({
			code: 'STATE_CONFLICT',
			message: 'this invitation was made before links could be shown again'
		});
		const corrupt = { ...old, inviteId: 'inv_corrupt000', secret: 'not b64u!', inviteUrl: 'https://service.test/invite/x', shortCode: 'X' };
		await storeInviteSecret(db, { ...corrupt, createdBy: ada.accountId, expiresAt: new Date(clock + 60_000) }, new Date(clock));
		await expect(showInvitation(deps, ada, corrupt.inviteId)).rejects.toMatchObject({ message: expect.stringContaining('invite secret') });
	});

	it('revokes a pending invitation for who made it or an admin: its secret goes, audited', async () => {
		const [mine, other] = [await createInvitation(deps, { account: ada }), await createInvitation(deps, { account: ada })];
		await expect(revokeInvitation(deps, bob, mine.inviteId)).rejects.toMatchObject({ code: 'FORBIDDEN' });
		expect(await stored(mine.inviteId)).toBeDefined();
		await revokeInvitation(deps, ada, mine.inviteId);
		await revokeInvitation(deps, grace, other.inviteId);
		expect(await stored(mine.inviteId)).toBeUndefined();
		expect(await stored(other.inviteId)).toBeUndefined();
		await expect(showInvitation(deps, ada, mine.inviteId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
		await expect(revokeInvitation(deps, ada, mine.inviteId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
		const revoked = (await audits('invitation.revoked')).filter((entry) => [mine.inviteId, other.inviteId].includes(entry.target!));
		expect(revoked).toEqual([
			{ actorId: grace.accountId, target: other.inviteId, details: { conversationId: other.conversationId } },
			{ actorId: ada.accountId, target: mine.inviteId, details: { conversationId: mine.conversationId } }
		]);
	});
});

describe('a service that answers an invitation oddly', () => {
	const databases = useDatabases('PGlite');
	let deps: ServiceDeps;
	let ada: Account;
	const now = Date.parse('2026-11-24T10:00:00Z');

	beforeAll(async () => {
		const db = await databases.open();
		const { company, companyKeys } = service;
		const upstream = new UpstreamClient({ baseUrl: service.front.url, apiKey: company.apiKey, signingSecret: company.webhookSecret, db });
		deps = { db, upstream, companyKeys: async () => companyKeys, now: () => now, log: quietLogger };
		ada = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'agent', passwordHash: 'h' }, new Date(now));
	}, 60_000);

	const answer = (path: string, record: Record<string, string>) =>
		service.front.answerPath(path, { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(record) });

	it('keeps the secret for the longest expiry when the service’s expiresAt is not a date', async () => {
		answer('/v1/invites', {
			inviteId: 'inv_odd0000000',
			conversationId: 'conv_odd000000',
			inviteUrl: 'https://service.test/invite/inv_odd0000000',
			shortCode: 'ODD-CODE',
			expiresAt: 'soon'
		});
		const invitation = await createInvitation(deps, { account: ada });
		expect(invitation.expiresAt).toBe('soon');
		const [row] = await deps.db.query<{ expires_at: Date }>('select expires_at from invite_secrets where invite_id = $1', [
			'inv_odd0000000'
		]);
		expect(new Date(row.expires_at).getTime()).toBe(now + MAX_INVITE_SECONDS * 1000);
	});

	it('refuses a re-invitation that names another conversation, and stores nothing', async () => {
		answer('/v1/conversations/conv_asked0000/reinvite', {
			inviteId: 'inv_other00000',
			conversationId: 'conv_other0000',
			inviteUrl: 'https://service.test/invite/inv_other00000',
			shortCode: 'OTHER-CODE',
			expiresAt: '2026-11-25T10:00:00Z'
		});
		await expect(createInvitation(deps, { account: ada, conversationId: 'conv_asked0000' })).rejects.toMatchObject({
			code: 'INVALID_RESPONSE',
			message: 'the re-invitation names another conversation'
		});
		expect(await deps.db.query('select 1 from invite_secrets where invite_id = $1', ['inv_other00000'])).toEqual([]);
	});

	it('refuses to build a link from a stored secret that does not decode', async () => {
		const expiresAt = new Date(now + 60_000);
		const corrupt = { inviteId: 'inv_corrupt000', conversationId: 'conv_corrupt00', kind: 'invite' as const, secret: 'not b64u!' };
		await storeInviteSecret(deps.db, { ...corrupt, createdBy: ada.accountId, expiresAt }, new Date(now));
		answer('/v1/invites', {
			inviteId: 'inv_corrupt000',
			conversationId: 'conv_corrupt00',
			inviteUrl: 'https://service.test/invite/inv_corrupt000',
			shortCode: 'CORRUPT',
			expiresAt: expiresAt.toISOString()
		});
		await expect(createInvitation(deps, { account: ada })).rejects.toMatchObject({ message: expect.stringContaining('invite secret') });
	});
});
