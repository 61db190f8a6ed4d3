/**
 * Appends to the audit log (docs/threat-model.md, "An admin"; src/lib/audit/chain.ts): the entry gets
 * the next number and the hash of the one before, under a transaction-scoped advisory lock so that the
 * inbox processes sharing the database append one chain. Called inside the caller's transaction where
 * there is one, so an action and its entry commit together.
 */
import { entryHash, GENESIS_HASH, type AuditEntry } from '../../audit/chain';
import type { Account } from '../db/accounts';
import type { Database, Queryable } from '../db/database';

/** Any constant shared by every process of the inbox: the advisory lock of the audit chain. */
const AUDIT_LOCK = 7_270_506;

export interface AuditRecord {
	actor: Pick<Account, 'accountId' | 'displayName'> | null;
	/** Who, when there is no account (a failed sign-in: the username tried). */
	actorName?: string;
	action: string;
	target?: string | null;
	details?: AuditEntry['details'];
}

async function append(tx: Queryable, record: AuditRecord, now: Date): Promise<void> {
	await tx.query('select pg_advisory_xact_lock($1)', [AUDIT_LOCK]);
	const [last] = await tx.query<{ seq: string; hash: string }>('select seq::text, hash from audit_log order by audit_log.seq desc limit 1');
	const fields = {
		seq: last ? Number(last.seq) + 1 : 1,
		at: now.toISOString(),
		actorId: record.actor?.accountId ?? null,
		actorName: (record.actor?.displayName ?? record.actorName ?? null)?.slice(0, 200) ?? null,
		action: record.action,
		target: record.target ?? null,
		details: record.details ?? {}
	};
	const prevHash = last?.hash ?? GENESIS_HASH;
	const hash = await entryHash(prevHash, fields);
	await tx.query(
		`insert into audit_log (seq, at, actor_id, actor_name, action, target, details, prev_hash, hash)
		 values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		[fields.seq, fields.at, fields.actorId, fields.actorName, fields.action, fields.target, JSON.stringify(fields.details), prevHash, hash]
	);
}

/** Records an action: in `target`'s transaction when given one, else in a transaction of its own. */
export async function recordAudit(target: Database | Queryable, record: AuditRecord, now: Date): Promise<void> {
	if ('transaction' in target) await target.transaction((tx) => append(tx, record, now));
	else await append(target, record, now);
}
