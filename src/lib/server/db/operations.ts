/**
 * Outgoing operations (contract 5.1 rules 1–2): one Idempotency-Key per logical operation, stored with
 * the exact method, path and body before the first attempt, so that a retry, even after a crash, sends
 * the same request with the same key and the service answers it once.
 */
import { randomBytes } from 'node:crypto';
import { b64uEncode } from '../../crypto/encoding';
import type { Queryable } from './database';
import { deleteInBatches } from './retention';

export interface StoredOperation {
	operationKey: string;
	idempotencyKey: string;
	method: string;
	pathAndQuery: string;
	body: string | null;
	completedAt: Date | null;
}

/** The service keeps keys 24 hours (contract 8); completed operations are forgotten after that. */
export const OPERATION_RETENTION_MS = 24 * 3600_000;

export function newIdempotencyKey(): string {
	return `op_${b64uEncode(randomBytes(18))}`;
}

interface OperationRow {
	operation_key: string;
	idempotency_key: string;
	method: string;
	path_and_query: string;
	body: string | null;
	completed_at: Date | null;
}

function toOperation(row: OperationRow): StoredOperation {
	return {
		operationKey: row.operation_key,
		idempotencyKey: row.idempotency_key,
		method: row.method,
		pathAndQuery: row.path_and_query,
		body: row.body,
		completedAt: row.completed_at ? new Date(row.completed_at) : null
	};
}

/** The stored operation, or this one stored now (the first writer wins). */
export async function loadOrCreateOperation(
	db: Queryable,
	input: { operationKey: string; method: string; pathAndQuery: string; body: string | null; idempotencyKey?: string },
	now: Date
): Promise<StoredOperation> {
	await db.query(
		`insert into outgoing_operations (operation_key, idempotency_key, method, path_and_query, body, created_at)
		 values ($1, $2, $3, $4, $5, $6) on conflict (operation_key) do nothing`,
		[input.operationKey, input.idempotencyKey ?? newIdempotencyKey(), input.method, input.pathAndQuery, input.body, now]
	);
	const [row] = await db.query<OperationRow>(
		'select operation_key, idempotency_key, method, path_and_query, body, completed_at from outgoing_operations where operation_key = $1',
		[input.operationKey]
	);
	return toOperation(row);
}

/** Many operations at once (grant jobs): each stored unless it exists, then all read back by key. */
export async function loadOrCreateOperations(
	db: Queryable,
	inputs: readonly { operationKey: string; method: string; pathAndQuery: string; body: string | null }[],
	now: Date
): Promise<Map<string, StoredOperation>> {
	if (inputs.length === 0) return new Map();
	await db.query(
		`insert into outgoing_operations (operation_key, idempotency_key, method, path_and_query, body, created_at)
		 select o.key, o.idempotency_key, o.method, o.path_and_query, o.body, $6
		 from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) as o (key, idempotency_key, method, path_and_query, body)
		 on conflict (operation_key) do nothing`,
		[
			inputs.map((input) => input.operationKey),
			inputs.map(() => newIdempotencyKey()),
			inputs.map((input) => input.method),
			inputs.map((input) => input.pathAndQuery),
			inputs.map((input) => input.body),
			now
		]
	);
	const rows = await db.query<OperationRow>(
		'select operation_key, idempotency_key, method, path_and_query, body, completed_at from outgoing_operations where operation_key = any($1::text[])',
		[inputs.map((input) => input.operationKey)]
	);
	return new Map(rows.map((row) => [row.operation_key, toOperation(row)]));
}

export async function completeOperations(
	db: Queryable,
	completed: readonly { operationKey: string; status: number }[],
	now: Date
): Promise<void> {
	if (completed.length === 0) return;
	await db.query(
		`update outgoing_operations o set completed_at = $3, response_status = c.status
		 from unnest($1::text[], $2::int[]) as c (operation_key, status) where o.operation_key = c.operation_key`,
		[completed.map((item) => item.operationKey), completed.map((item) => item.status), now]
	);
}

export async function completeOperation(db: Queryable, operationKey: string, status: number, now: Date): Promise<void> {
	await db.query('update outgoing_operations set completed_at = $2, response_status = $3 where operation_key = $1', [
		operationKey,
		now,
		status
	]);
}

export async function pruneOperations(db: Queryable, now: Date): Promise<void> {
	const expiry = { table: 'outgoing_operations', key: 'operation_key', expired: 'created_at < $1' };
	await deleteInBatches(db, expiry, new Date(now.getTime() - OPERATION_RETENTION_MS));
}
