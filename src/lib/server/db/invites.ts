/**
 * Invitation secrets (contract 6.3, 6.4): 32 random bytes stored against the conversation when the
 * invitation is made, read when `conversation.started` arrives, deleted once the binding is checked or the
 * invitation has expired. They never leave the server except inside the link returned once.
 */
import type { Queryable } from './database';
import { deleteInBatches } from './retention';

export interface InviteSecret {
	inviteId: string;
	conversationId: string;
	kind: 'invite' | 'reinvite';
	/** b64u of the 32 bytes. */
	secret: string;
	/** The account that asked for the invitation; null when unknown or deleted. */
	createdBy: string | null;
}

/** Stores the secret of an invitation, or returns the one already stored for it (a replayed request: `replayed`). */
export async function storeInviteSecret(
	db: Queryable,
	input: Omit<InviteSecret, 'createdBy'> & { createdBy: string | null; expiresAt: Date },
	now: Date
): Promise<InviteSecret & { replayed: boolean }> {
	const inserted = await db.query(
		`insert into invite_secrets (invite_id, conversation_id, kind, secret, created_by, created_at, expires_at)
		 values ($1, $2, $3, $4, $5, $6, $7) on conflict (invite_id) do nothing returning invite_id`,
		[input.inviteId, input.conversationId, input.kind, input.secret, input.createdBy, now, input.expiresAt]
	);
	const [row] = await db.query<{
		invite_id: string;
		conversation_id: string;
		kind: 'invite' | 'reinvite';
		secret: string;
		created_by: string | null;
	}>('select invite_id, conversation_id, kind, secret, created_by from invite_secrets where invite_id = $1', [input.inviteId]);
	return {
		inviteId: row.invite_id,
		conversationId: row.conversation_id,
		kind: row.kind,
		secret: row.secret,
		createdBy: row.created_by,
		replayed: inserted.length === 0
	};
}

export async function inviteSecretsOf(tx: Queryable, conversationId: string): Promise<InviteSecret[]> {
	const rows = await tx.query<{
		invite_id: string;
		conversation_id: string;
		kind: 'invite' | 'reinvite';
		secret: string;
		created_by: string | null;
	}>('select invite_id, conversation_id, kind, secret, created_by from invite_secrets where conversation_id = $1 order by created_at', [
		conversationId
	]);
	return rows.map((row) => ({
		inviteId: row.invite_id,
		conversationId: row.conversation_id,
		kind: row.kind,
		secret: row.secret,
		createdBy: row.created_by
	}));
}

export async function deleteInviteSecrets(tx: Queryable, inviteIds: readonly string[]): Promise<void> {
	if (inviteIds.length) await tx.query('delete from invite_secrets where invite_id = any($1::text[])', [inviteIds]);
}

/** Deletes the secrets of invitations that expired more than a day ago (a margin for clock differences). */
export async function deleteExpiredInviteSecrets(db: Queryable, now: Date): Promise<void> {
	await deleteInBatches(
		db,
		{ table: 'invite_secrets', key: 'invite_id', expired: 'expires_at < $1' },
		new Date(now.getTime() - 24 * 3600_000)
	);
}
