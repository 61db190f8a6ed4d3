/**
 * Reading the audit log (docs/inbox-api.md, "Audit log"): newest first with filters for the list, or
 * oldest first from a number on for verifying the chain. The log is written by server/audit/record.ts
 * only, and never updated or deleted by the inbox.
 */
import type { AuditEntry } from '../../audit/chain';
import type { Queryable } from './database';

export interface AuditQuery {
	action?: string;
	actorId?: string;
	/** Entries numbered below (newest first), or above (oldest first, for verifying). */
	before?: number;
	after?: number;
	limit: number;
}

interface AuditRow {
	seq: string;
	at: string;
	actor_id: string | null;
	actor_name: string | null;
	action: string;
	target: string | null;
	details: AuditEntry['details'];
	prev_hash: string;
	hash: string;
}

export async function listAuditEntries(db: Queryable, query: AuditQuery): Promise<AuditEntry[]> {
	const ascending = query.after !== undefined;
	const rows = await db.query<AuditRow>(
		`select seq::text, at, actor_id, actor_name, action, target, details, prev_hash, hash from audit_log
		 where ($1::text is null or action = $1) and ($2::text is null or actor_id = $2)
		   and ($3::bigint is null or seq < $3) and ($4::bigint is null or seq > $4)
		 order by audit_log.seq ${ascending ? 'asc' : 'desc'} limit $5`,
		[query.action ?? null, query.actorId ?? null, query.before ?? null, query.after ?? null, query.limit]
	);
	return rows.map((row) => ({
		seq: Number(row.seq),
		at: row.at,
		actorId: row.actor_id,
		actorName: row.actor_name,
		action: row.action,
		target: row.target,
		details: row.details,
		prevHash: row.prev_hash,
		hash: row.hash
	}));
}
