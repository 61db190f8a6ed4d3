/**
 * Grant jobs (contract 6.7: "open K, seal it for each new agent and upload via the agent-wraps
 * endpoint"): one row per job with its progress, one row per conversation with its company wrap and a
 * done mark, so a job survives a restart and never grants a conversation twice. With several processes
 * a running job is worked on by the one that holds its lease (docs/operations.md "Several processes"):
 * listing, marking and finishing need the lease's token, so a process that lost it records nothing.
 */
import { randomBytes } from 'node:crypto';
import { b64uEncode, type RosterAgent, type Wrap } from '../../crypto/index';
import type { Database, Queryable } from './database';
import { LeaseLostError, type Lease } from './leases';

export type GrantJobState = 'running' | 'done' | 'failed';

export interface GrantJob {
	jobId: string;
	rosterVersion: number;
	agents: RosterAgent[];
	state: GrantJobState;
	/** Every conversation of the service is listed into the job's items. */
	listed: boolean;
	listCursor: string | null;
	total: number;
	done: number;
	failed: number;
	startedAt: Date;
	finishedAt: Date | null;
	lastError: string | null;
}

export interface GrantItem {
	conversationId: string;
	wrapForCompany: Wrap;
}

interface JobRow {
	job_id: string;
	roster_version: number;
	agents: RosterAgent[];
	state: GrantJobState;
	listed: boolean;
	list_cursor: string | null;
	total: number;
	done: number;
	failed: number;
	started_at: Date;
	finished_at: Date | null;
	last_error: string | null;
}

const toJob = (row: JobRow): GrantJob => ({
	jobId: row.job_id,
	rosterVersion: row.roster_version,
	agents: row.agents,
	state: row.state,
	listed: row.listed,
	listCursor: row.list_cursor,
	total: row.total,
	done: row.done,
	failed: row.failed,
	startedAt: new Date(row.started_at),
	finishedAt: row.finished_at ? new Date(row.finished_at) : null,
	lastError: row.last_error
});

export function newGrantJobId(): string {
	return `grj_${b64uEncode(randomBytes(12))}`;
}

export async function createGrantJob(
	db: Queryable,
	input: { jobId: string; rosterVersion: number; agents: RosterAgent[] },
	now: Date
): Promise<GrantJob> {
	const [row] = await db.query<JobRow>(
		`insert into grant_jobs (job_id, roster_version, agents, state, started_at, updated_at)
		 values ($1, $2, $3, 'running', $4, $4) returning *`,
		[input.jobId, input.rosterVersion, JSON.stringify(input.agents), now]
	);
	return toJob(row);
}

export async function getGrantJob(db: Queryable, jobId: string): Promise<GrantJob | undefined> {
	const [row] = await db.query<JobRow>('select * from grant_jobs where job_id = $1', [jobId]);
	return row && toJob(row);
}

/** Newest first. */
export async function listGrantJobs(db: Queryable, limit = 50): Promise<GrantJob[]> {
	return (await db.query<JobRow>('select * from grant_jobs order by started_at desc, job_id limit $1', [limit])).map(toJob);
}

/**
 * The oldest running job not held by another process, taken under `lease`; null when there is none.
 * Without a lease (PGlite: one process owns the database) the oldest running job not in `skip`.
 */
export async function claimGrantJob(db: Queryable, lease: Lease | null, now: Date, skip: readonly string[] = []): Promise<GrantJob | null> {
	if (lease === null) {
		const [row] = await db.query<JobRow>(
			`select * from grant_jobs where state = 'running' and not (job_id = any($1::text[])) order by started_at limit 1`,
			[skip]
		);
		return row ? toJob(row) : null;
	}
	const [row] = await db.query<JobRow>(
		`update grant_jobs set lease_token = $1, locked_until = $2
		 where job_id = (
			select job_id from grant_jobs
			where state = 'running' and (locked_until is null or locked_until <= $3) and not (job_id = any($4::text[]))
			order by started_at limit 1 for update skip locked)
		 returning *`,
		[lease.token, new Date(now.getTime() + lease.ms), now, skip]
	);
	return row ? toJob(row) : null;
}

/** Extends the lease on a job; false when another process holds it now. */
export async function renewGrantLease(db: Queryable, jobId: string, lease: Lease, now: Date): Promise<boolean> {
	const rows = await db.query(`update grant_jobs set locked_until = $3 where job_id = $1 and lease_token = $2 returning job_id`, [
		jobId,
		lease.token,
		new Date(now.getTime() + lease.ms)
	]);
	return rows.length === 1;
}

/** Gives a job back unfinished, for any process to take at once. */
export async function releaseGrantJob(db: Queryable, jobId: string, token: string): Promise<void> {
	await db.query(`update grant_jobs set lease_token = null, locked_until = null where job_id = $1 and lease_token = $2`, [jobId, token]);
}

/** Locks the job's row for the caller's transaction; LeaseLostError unless `token` still holds it (null: no lease). */
async function holdGrantJob(tx: Queryable, jobId: string, token: string | null): Promise<void> {
	const rows = await tx.query(`select job_id from grant_jobs where job_id = $1 and lease_token is not distinct from $2 for update`, [
		jobId,
		token
	]);
	if (rows.length !== 1) throw new LeaseLostError(`grant job ${jobId}`);
}

/** Adds listed conversations (a conversation listed twice stays once) and moves the listing cursor. */
export async function addGrantItems(
	db: Database,
	jobId: string,
	leaseToken: string | null,
	items: readonly GrantItem[],
	next: { cursor: string | null; listed: boolean },
	now: Date
): Promise<void> {
	await db.transaction(async (tx) => {
		await holdGrantJob(tx, jobId, leaseToken);
		if (items.length) {
			await tx.query(
				`insert into grant_job_items (job_id, conversation_id, wrap_for_company)
				 select $1, conversation_id, wrap from unnest($2::text[], $3::jsonb[]) as i (conversation_id, wrap)
				 on conflict do nothing`,
				[jobId, items.map((item) => item.conversationId), items.map((item) => JSON.stringify(item.wrapForCompany))]
			);
		}
		await tx.query(
			`update grant_jobs set list_cursor = $2, listed = $3, updated_at = $4,
			 total = (select count(*) from grant_job_items where job_id = $1) where job_id = $1`,
			[jobId, next.cursor, next.listed, now]
		);
	});
}

/** Up to `limit` conversations not yet granted, after `afterConversationId` (the caller's position). */
export async function pendingGrantItems(db: Queryable, jobId: string, afterConversationId: string, limit: number): Promise<GrantItem[]> {
	const rows = await db.query<{ conversation_id: string; wrap_for_company: Wrap }>(
		`select conversation_id, wrap_for_company from grant_job_items
		 where job_id = $1 and state = 'pending' and conversation_id > $2 order by conversation_id limit $3`,
		[jobId, afterConversationId, limit]
	);
	return rows.map((row) => ({ conversationId: row.conversation_id, wrapForCompany: row.wrap_for_company }));
}

/**
 * Marks conversations done or failed and counts them into the job, in the caller's transaction;
 * LeaseLostError (nothing marked) unless `leaseToken` still holds the job.
 */
export async function settleGrantItems(
	tx: Queryable,
	jobId: string,
	leaseToken: string | null,
	settled: readonly { conversationId: string; error: string | null }[],
	now: Date
): Promise<void> {
	await holdGrantJob(tx, jobId, leaseToken);
	if (settled.length === 0) return;
	// Counted from the marks this statement made (a mark already made is not counted twice).
	await tx.query(
		`with marked as (
			update grant_job_items i set state = case when s.error is null then 'done' else 'failed' end, error = s.error
			from unnest($2::text[], $3::text[]) as s (conversation_id, error)
			where i.job_id = $1 and i.conversation_id = s.conversation_id and i.state = 'pending'
			returning i.state)
		 update grant_jobs set updated_at = $4,
			done = done + (select count(*) from marked where state = 'done'),
			failed = failed + (select count(*) from marked where state = 'failed')
		 where job_id = $1`,
		[jobId, settled.map((item) => item.conversationId), settled.map((item) => item.error), now]
	);
}

/** Ends a running job and its lease; undefined when `leaseToken` no longer holds it or it ended already. */
export async function finishGrantJob(
	db: Queryable,
	jobId: string,
	leaseToken: string | null,
	outcome: { state: 'done' | 'failed'; lastError: string | null },
	now: Date
): Promise<GrantJob | undefined> {
	const [row] = await db.query<JobRow>(
		`update grant_jobs set state = $2, last_error = coalesce($3, last_error), finished_at = $4, updated_at = $4,
		 lease_token = null, locked_until = null
		 where job_id = $1 and state = 'running' and lease_token is not distinct from $5 returning *`,
		[jobId, outcome.state, outcome.lastError, now, leaseToken]
	);
	return row && toJob(row);
}

/** A failed job runs again: its failed conversations are pending again (their old requests forgotten). */
export async function reopenGrantJob(tx: Queryable, jobId: string, now: Date): Promise<GrantJob | undefined> {
	await tx.query(
		`delete from outgoing_operations where operation_key in (
			select 'grant:' || job_id || ':' || conversation_id from grant_job_items where job_id = $1 and state = 'failed')`,
		[jobId]
	);
	await tx.query(`update grant_job_items set state = 'pending', error = null where job_id = $1 and state = 'failed'`, [jobId]);
	const [row] = await tx.query<JobRow>(
		`update grant_jobs set state = 'running', failed = 0, finished_at = null, last_error = null, updated_at = $2,
		 lease_token = null, locked_until = null
		 where job_id = $1 and state = 'failed' and superseded_by is null returning *`,
		[jobId, now]
	);
	return row && toJob(row);
}

/** Jobs of rosters before `rosterVersion` that did not grant everything and were not taken over yet. */
export async function unfinishedGrantJobs(db: Queryable, rosterVersion: number): Promise<GrantJob[]> {
	const rows = await db.query<JobRow>(
		`select * from grant_jobs where roster_version < $1 and state <> 'done' and superseded_by is null order by started_at`,
		[rosterVersion]
	);
	return rows.map(toJob);
}

/**
 * Stops the unfinished jobs of older rosters (their uploads name a roster the service no longer takes);
 * `by`, the newer roster's job, takes over their agents that are still in it. Returns the stopped jobs.
 */
export async function supersedeGrantJobs(tx: Queryable, rosterVersion: number, by: string | null, now: Date): Promise<GrantJob[]> {
	const rows = await tx.query<JobRow>(
		`update grant_jobs set state = 'failed', superseded_by = $2, finished_at = coalesce(finished_at, $3), updated_at = $3,
		 last_error = 'superseded by roster ' || $1::text, lease_token = null, locked_until = null
		 where roster_version < $1 and state <> 'done' and superseded_by is null
		 returning *`,
		[rosterVersion, by, now]
	);
	return rows.map(toJob);
}

/** The operation key of a conversation's upload in a job: one Idempotency-Key per (job, conversation). */
export function grantOperationKey(jobId: string, conversationId: string): string {
	return `grant:${jobId}:${conversationId}`;
}

/** The running grant jobs, with the conversations they have done and hold in all (docs/operations.md "Metrics"). */
export async function runningGrantProgress(db: Queryable): Promise<{ running: number; done: number; total: number }> {
	const [row] = await db.query<{ running: number; done: number; total: number }>(
		"select count(*)::int as running, coalesce(sum(done), 0)::int as done, coalesce(sum(total), 0)::int as total from grant_jobs where state = 'running'"
	);
	return row;
}
