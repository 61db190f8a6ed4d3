/**
 * One-time links that let a person create their own agent or admin account (docs/inbox-api.md
 * "Administration"): only the SHA-256 of the link's token is stored; a link works once, until it expires.
 */
import { createHash, randomBytes } from 'node:crypto';
import { b64uEncode } from '../../crypto/encoding';
import type { Role } from './accounts';
import type { Queryable } from './database';

export interface AgentInvitation {
	invitationId: string;
	displayName: string;
	role: Role;
	/** The admin who made the link: the role of the account it creates comes from them. */
	createdBy: string | null;
	createdAt: Date;
	expiresAt: Date;
	usedAt: Date | null;
}

interface InvitationRow {
	invitation_id: string;
	display_name: string;
	role: Role;
	created_by: string | null;
	created_at: Date;
	expires_at: Date;
	used_at: Date | null;
}

const toInvitation = (row: InvitationRow): AgentInvitation => ({
	invitationId: row.invitation_id,
	displayName: row.display_name,
	role: row.role,
	createdBy: row.created_by,
	createdAt: new Date(row.created_at),
	expiresAt: new Date(row.expires_at),
	usedAt: row.used_at ? new Date(row.used_at) : null
});

export const hashInvitationToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Stores a new invitation; returns it with the token, which exists nowhere else. */
export async function createAgentInvitation(
	db: Queryable,
	input: { displayName: string; role: Role; createdBy: string; expiresAt: Date },
	now: Date
): Promise<{ invitation: AgentInvitation; token: string }> {
	const token = b64uEncode(randomBytes(32));
	const [row] = await db.query<InvitationRow>(
		`insert into agent_invitations (invitation_id, token_hash, display_name, role, created_by, created_at, expires_at)
		 values ($1, $2, $3, $4, $5, $6, $7) returning *`,
		[`ain_${b64uEncode(randomBytes(12))}`, hashInvitationToken(token), input.displayName, input.role, input.createdBy, now, input.expiresAt]
	);
	return { invitation: toInvitation(row), token };
}

/** The invitation of a token, locked for the caller's transaction. */
export async function lockInvitationByToken(tx: Queryable, token: string): Promise<AgentInvitation | undefined> {
	const [row] = await tx.query<InvitationRow>('select * from agent_invitations where token_hash = $1 for update', [
		hashInvitationToken(token)
	]);
	return row && toInvitation(row);
}

export async function markInvitationUsed(tx: Queryable, invitationId: string, accountId: string, now: Date): Promise<void> {
	await tx.query('update agent_invitations set used_at = $2, account_id = $3 where invitation_id = $1', [invitationId, now, accountId]);
}

/** Links not used, not expired, not revoked, newest first, with who made them. */
export async function listPendingAgentInvitations(
	db: Queryable,
	now: Date
): Promise<(AgentInvitation & { createdByName: string | null })[]> {
	const rows = await db.query<InvitationRow & { created_by_name: string | null }>(
		`select i.*, a.display_name as created_by_name from agent_invitations i left join accounts a on a.account_id = i.created_by
		 where i.used_at is null and i.expires_at > $1 order by i.created_at desc`,
		[now]
	);
	return rows.map((row) => ({ ...toInvitation(row), createdByName: row.created_by_name }));
}

/** Ends a pending link now (it expires); false when it is not pending. */
export async function revokeAgentInvitation(db: Queryable, invitationId: string, now: Date): Promise<AgentInvitation | undefined> {
	const [row] = await db.query<InvitationRow>(
		'update agent_invitations set expires_at = $2 where invitation_id = $1 and used_at is null and expires_at > $2 returning *',
		[invitationId, now]
	);
	return row && toInvitation(row);
}
