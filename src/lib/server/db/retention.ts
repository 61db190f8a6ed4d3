/**
 * Deleting what is past its time (docs/operations.md "Retention"): in batches on an indexed column, each
 * batch one short statement that skips rows another transaction holds, with a pause between batches, so
 * that pruning a backlog of millions of rows never holds up the webhook receiver or the pages.
 */
import type { Queryable } from './database';

/** What expires in a table: its key column and the condition on `$1`, the cutoff (an indexed column). */
export interface Expiry {
	table: string;
	key: string;
	expired: string;
}

export const RETENTION_BATCH = 2_000;
/** Between two batches: the receiver's statements run in between. */
export const RETENTION_PAUSE_MS = 20;

/** Deletes the rows of `expiry` older than `cutoff`, a batch at a time; returns how many. */
export async function deleteInBatches(
	db: Queryable,
	expiry: Expiry,
	cutoff: Date,
	options: { batch?: number; pauseMs?: number } = {}
): Promise<number> {
	const batch = options.batch ?? RETENTION_BATCH;
	const { table, key, expired } = expiry;
	let deleted = 0;
	for (;;) {
		const [row] = await db.query<{ deleted: number }>(
			`with gone as (
				delete from ${table} where ${key} in (select ${key} from ${table} where ${expired} limit $2 for update skip locked)
				returning 1)
			 select count(*)::int as deleted from gone`,
			[cutoff, batch]
		);
		deleted += row.deleted;
		if (row.deleted < batch) return deleted;
		await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? RETENTION_PAUSE_MS));
	}
}
