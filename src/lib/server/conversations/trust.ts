/**
 * The trust state of a started conversation (contract 6.3, 6.5): `verified` when `data.inviteBinding`
 * matches one of the conversation's stored invitation secrets, `binding_invalid` when it matches none
 * (the user's key may have been substituted), `unverified` without a binding. The secret that matched,
 * and the secrets of a first invitation once it is used, are deleted.
 */
import { ContractError } from '../../errors';
import { b64uDecode } from '../../crypto/encoding';
import { verifyInviteBinding } from '../../crypto/invite';
import type { ConversationStarted } from '../../wire/v1';
import type { Trust } from '../db/conversations';
import type { Queryable } from '../db/database';
import { deleteInviteSecrets, inviteSecretsOf } from '../db/invites';

export interface TrustDecision {
	trust: Trust;
	/** Why, for the log (never a secret). */
	reason: string;
	/**
	 * Who asked for the re-invitation the customer answered: the creator of the secret that matched, or
	 * without a binding the creator of the latest re-invitation; null when unknown.
	 */
	reinvitedBy: string | null;
	/** When that re-invitation was asked for; null when unknown. */
	reinvitedAt: Date | null;
}

export async function decideTrust(tx: Queryable, started: ConversationStarted): Promise<TrustDecision> {
	const secrets = await inviteSecretsOf(tx, started.conversationId);
	const firstInvitations = secrets.filter((secret) => secret.kind === 'invite').map((secret) => secret.inviteId);
	const latestReinvitation = secrets.filter((secret) => secret.kind === 'reinvite').at(-1);
	const latest = { reinvitedBy: latestReinvitation?.createdBy ?? null, reinvitedAt: latestReinvitation?.createdAt ?? null };
	if (started.inviteBinding === null) {
		// The short code was typed: nothing to verify (6.3 step 5). A first invitation is used up either way.
		if (!started.isReinvite) await deleteInviteSecrets(tx, firstInvitations);
		return { trust: 'unverified', reason: 'no inviteBinding (short code)', ...latest };
	}
	if (secrets.length === 0)
		return {
			trust: 'unverified',
			reason: 'inviteBinding present but no invitation secret of this inbox to check it',
			reinvitedBy: null,
			reinvitedAt: null
		};
	const userPublicKey = b64uDecode(started.userPublicKey, 'userPublicKey');
	for (const secret of secrets) {
		try {
			verifyInviteBinding(started.inviteBinding, {
				inviteSecret: b64uDecode(secret.secret, 'invite secret'),
				conversationId: started.conversationId,
				userPublicKey,
				wrapForCompany: started.conversationKey
			});
		} catch (error) {
			if (error instanceof ContractError && error.code === 'BINDING_INVALID') continue;
			throw error;
		}
		await deleteInviteSecrets(tx, [...new Set([secret.inviteId, ...(started.isReinvite ? [] : firstInvitations)])]);
		return {
			trust: 'verified',
			reason: `bound to invitation ${secret.inviteId}`,
			reinvitedBy: secret.createdBy,
			reinvitedAt: secret.createdAt
		};
	}
	return {
		trust: 'binding_invalid',
		reason: `inviteBinding matches none of ${secrets.length} invitation secret(s)`,
		...latest
	};
}
