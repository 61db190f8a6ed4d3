import { beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import {
	b64uEncode,
	computeInviteBinding,
	generateInviteSecret,
	generateX25519KeyPair,
	initCrypto,
	sealConversationKey
} from '../../crypto/index';
import type { ConversationStarted } from '../../wire/v1-events';
import { createAccount } from '../db/accounts';
import type { Database } from '../db/database';
import { inviteSecretsOf, storeInviteSecret } from '../db/invites';
import { decideTrust } from './trust';

beforeAll(() => initCrypto());

let conversations = 0;

function newConversationId(): string {
	return `conv_trust${String(++conversations).padStart(4, '0')}`;
}

describe.each(BACKENDS)('the trust of a started conversation on %s (contract 6.3, 6.5)', (backend) => {
	const databases = useDatabases(backend);
	let db: Database;
	let alice: string;
	let bob: string;
	let secrets = 0;

	beforeAll(async () => {
		db = await databases.open();
		const now = new Date();
		alice = (await createAccount(db, { username: 'alice', displayName: 'Alice', role: 'agent', passwordHash: 'h' }, now)).accountId;
		bob = (await createAccount(db, { username: 'bob', displayName: 'Bob', role: 'agent', passwordHash: 'h' }, now)).accountId;
	}, 60_000);

	/** Stores an invitation secret of the conversation; returns its id and bytes. */
	async function invitation(conversationId: string, kind: 'invite' | 'reinvite', createdBy: string) {
		const secret = generateInviteSecret();
		const inviteId = `inv_trust${String(++secrets).padStart(4, '0')}`;
		// one second apart, so the stored order is the order of creation
		const now = new Date(Date.UTC(2026, 10, 1, 0, 0, secrets));
		await storeInviteSecret(
			db,
			{ inviteId, conversationId, kind, secret: b64uEncode(secret), createdBy, expiresAt: new Date(now.getTime() + 86_400_000) },
			now
		);
		return { inviteId, secret, at: now };
	}

	const remaining = async (conversationId: string) => (await inviteSecretsOf(db, conversationId)).map((secret) => secret.inviteId);

	it('is verified by the first invitation’s secret, which is then used up', async () => {
		const conversationId = newConversationId();
		const first = await invitation(conversationId, 'invite', alice);
		const decision = await decideTrust(db, startedFor(conversationId, first.secret));
		expect(decision).toEqual({
			trust: 'verified',
			reason: `bound to invitation ${first.inviteId}`,
			reinvitedBy: alice,
			reinvitedAt: first.at
		});
		expect(await remaining(conversationId)).toEqual([]);
	});

	it('a re-invitation’s binding deletes only that secret; an answered first invitation deletes every first secret', async () => {
		const conversationId = newConversationId();
		const first = await invitation(conversationId, 'invite', alice);
		const second = await invitation(conversationId, 'invite', alice);
		const reinvite = await invitation(conversationId, 'reinvite', bob);
		const other = await invitation(conversationId, 'reinvite', alice);

		const byReinvite = await decideTrust(db, startedFor(conversationId, reinvite.secret, true));
		expect(byReinvite).toEqual({
			trust: 'verified',
			reason: `bound to invitation ${reinvite.inviteId}`,
			reinvitedBy: bob,
			reinvitedAt: reinvite.at
		});
		expect(await remaining(conversationId)).toEqual([first.inviteId, second.inviteId, other.inviteId]);

		const bySecond = await decideTrust(db, startedFor(conversationId, second.secret));
		expect(bySecond).toEqual({
			trust: 'verified',
			reason: `bound to invitation ${second.inviteId}`,
			reinvitedBy: alice,
			reinvitedAt: second.at
		});
		expect(await remaining(conversationId)).toEqual([other.inviteId]);
	});

	it('a binding that matches no stored secret is binding_invalid, named with the number tried, and deletes nothing', async () => {
		const conversationId = newConversationId();
		const first = await invitation(conversationId, 'invite', alice);
		const reinvite = await invitation(conversationId, 'reinvite', bob);
		const decision = await decideTrust(db, startedFor(conversationId, generateInviteSecret()));
		expect(decision).toEqual({
			trust: 'binding_invalid',
			reason: 'inviteBinding matches none of 2 invitation secret(s)',
			reinvitedBy: bob,
			reinvitedAt: reinvite.at
		});
		expect(await remaining(conversationId)).toEqual([first.inviteId, reinvite.inviteId]);
	});

	it('without a binding (the short code) it is unverified: a first invitation is used up, a re-invitation keeps its secrets', async () => {
		const conversationId = newConversationId();
		const first = await invitation(conversationId, 'invite', alice);
		const reinvite = await invitation(conversationId, 'reinvite', bob);
		const later = await invitation(conversationId, 'reinvite', alice);

		const answeredReinvite = await decideTrust(db, startedFor(conversationId, null, true));
		expect(answeredReinvite).toEqual({
			trust: 'unverified',
			reason: 'no inviteBinding (short code)',
			reinvitedBy: alice,
			reinvitedAt: later.at
		});
		expect(await remaining(conversationId)).toEqual([first.inviteId, reinvite.inviteId, later.inviteId]);

		const answeredFirst = await decideTrust(db, startedFor(conversationId, null));
		expect(answeredFirst.trust).toBe('unverified');
		expect(await remaining(conversationId)).toEqual([reinvite.inviteId, later.inviteId]);
	});

	it('names the latest re-inviter, not whoever made a later first invitation', async () => {
		const conversationId = newConversationId();
		await invitation(conversationId, 'reinvite', bob);
		await invitation(conversationId, 'invite', alice);
		expect((await decideTrust(db, startedFor(conversationId, null, true))).reinvitedBy).toBe(bob);
	});

	it('a binding with no secret of this inbox to check it is unverified, not invalid', async () => {
		expect(await decideTrust(db, startedFor(newConversationId(), generateInviteSecret()))).toEqual({
			trust: 'unverified',
			reason: 'inviteBinding present but no invitation secret of this inbox to check it',
			reinvitedBy: null,
			reinvitedAt: null
		});
	});

	it('a malformed binding is binding_invalid; a malformed key or stored secret is an error, never a verdict', async () => {
		const conversationId = newConversationId();
		await invitation(conversationId, 'invite', alice);
		const malformed = { ...startedFor(conversationId, generateInviteSecret()), inviteBinding: 'not base64url!' };
		expect((await decideTrust(db, malformed)).trust).toBe('binding_invalid');
		const badKey = { ...startedFor(conversationId, generateInviteSecret()), userPublicKey: '***' };
		await expect(decideTrust(db, badKey)).rejects.toThrow(/^userPublicKey is not base64url/);

		const corrupted = newConversationId();
		await storeInviteSecret(
			db,
			{
				inviteId: 'inv_corrupt000',
				conversationId: corrupted,
				kind: 'invite',
				secret: '***',
				createdBy: alice,
				expiresAt: new Date(Date.now() + 86_400_000)
			},
			new Date()
		);
		await expect(decideTrust(db, startedFor(corrupted, generateInviteSecret()))).rejects.toThrow(/^invite secret is not base64url/);
	});
});

/** A conversation.started of `conversationId`, bound with `secret` (null: the short code was typed). */
function startedFor(conversationId: string, secret: Uint8Array | null, isReinvite = false): ConversationStarted {
	const user = generateX25519KeyPair();
	const company = generateX25519KeyPair();
	const conversationKey = sealConversationKey({
		conversationKey: new Uint8Array(32).fill(3),
		conversationId,
		keyVersion: 1,
		recipientPublicKey: company.publicKey
	});
	const inviteBinding = secret
		? b64uEncode(
				computeInviteBinding({ inviteSecret: secret, conversationId, userPublicKey: user.publicKey, wrapForCompany: conversationKey })
			)
		: null;
	return { conversationId, conversationKey, userPublicKey: b64uEncode(user.publicKey), inviteBinding, isReinvite, agentWraps: [] };
}
