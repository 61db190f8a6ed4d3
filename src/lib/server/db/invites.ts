/**
 * Invitation secrets (contract 6.3, 6.4): 32 random bytes stored against the conversation when the
 * invitation is made, read when `conversation.started` arrives, deleted once the binding is checked or the
 * invitation has expired. They never leave the server except inside the link returned once.
 */
import { isoSeconds } from '../../crypto/rules';
import type { PendingInvite } from '../../inbox-api/records';
import type { Account } from './accounts';
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
	createdAt: Date;
}

interface SecretRow {
	invite_id: string;
	conversation_id: string;
	kind: 'invite' | 'reinvite';
	secret: string;
	created_by: string | null;
	created_at: Date;
}

const toSecret = (row: SecretRow): InviteSecret => ({
	inviteId: row.invite_id,
	conversationId: row.conversation_id,
	kind: row.kind,
	secret: row.secret,
	createdBy: row.created_by,
	createdAt: new Date(row.created_at)
});

/** Stores the secret of an invitation, or returns the one already stored for it (a replayed request: `replayed`). */
export async function storeInviteSecret(
	db: Queryable,
	input: Omit<InviteSecret, 'createdBy' | 'createdAt'> & {
		createdBy: string | null;
		expiresAt: Date;
		inviteUrl?: string;
		shortCode?: string;
	},
	now: Date
): Promise<InviteSecret & { replayed: boolean }> {
	const inserted = await db.query(
		`insert into invite_secrets (invite_id, conversation_id, kind, secret, created_by, created_at, expires_at, invite_url, short_code)
		 values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (invite_id) do nothing returning invite_id`,
		[
			input.inviteId,
			input.conversationId,
			input.kind,
			input.secret,
			input.createdBy,
			now,
			input.expiresAt,
			input.inviteUrl ?? null,
			input.shortCode ?? null
		]
	);
	const [row] = await db.query<SecretRow>(
		'select invite_id, conversation_id, kind, secret, created_by, created_at from invite_secrets where invite_id = $1',
		[input.inviteId]
	);
	return { ...toSecret(row), replayed: inserted.length === 0 };
}

export async function inviteSecretsOf(tx: Queryable, conversationId: string): Promise<InviteSecret[]> {
	const rows = await tx.query<SecretRow>(
		'select invite_id, conversation_id, kind, secret, created_by, created_at from invite_secrets where conversation_id = $1 order by created_at',
		[conversationId]
	);
	return rows.map(toSecret);
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

/** The pending invitations, newest first, each saying whether `account` may manage it (who made it, or an admin). */
export async function listPendingInvites(db: Queryable, account: Pick<Account, 'accountId' | 'role'>, now: Date): Promise<PendingInvite[]> {
	const rows = await db.query<{
		invite_id: string;
		conversation_id: string;
		kind: 'invite' | 'reinvite';
		created_by: string | null;
		created_by_name: string | null;
		created_at: Date;
		expires_at: Date;
		showable: boolean;
	}>(
		`select i.invite_id, i.conversation_id, i.kind, i.created_by, a.display_name as created_by_name, i.created_at, i.expires_at,
		        i.invite_url is not null as showable
		 from invite_secrets i left join accounts a on a.account_id = i.created_by
		 where i.expires_at > $1 order by i.created_at desc limit 500`,
		[now]
	);
	return rows.map((row) => ({
		inviteId: row.invite_id,
		conversationId: row.conversation_id,
		kind: row.kind,
		createdByName: row.created_by_name,
		createdAt: isoSeconds(row.created_at),
		expiresAt: isoSeconds(row.expires_at),
		showable: row.showable,
		mayManage: account.role === 'admin' || row.created_by === account.accountId
	}));
}

/** A pending invitation with what its link is made of, or undefined when it is used, expired or revoked. */
export async function pendingInvite(
	db: Queryable,
	inviteId: string,
	now: Date
): Promise<(InviteSecret & { inviteUrl: string | null; shortCode: string | null; expiresAt: Date }) | undefined> {
	const [row] = await db.query<SecretRow & { invite_url: string | null; short_code: string | null; expires_at: Date }>(
		'select * from invite_secrets where invite_id = $1 and expires_at > $2',
		[inviteId, now]
	);
	return row && { ...toSecret(row), inviteUrl: row.invite_url, shortCode: row.short_code, expiresAt: new Date(row.expires_at) };
}
