/**
 * The stored webhook queue (contract 5.2 steps 6–7): raw events inserted once per event id and committed
 * before the acknowledgement; a body without an id also once per its bytes, since the header that named
 * it is not signed (docs/contract-gaps.md §14, "Deduplicating a body without an id"). Then claimed in order with a lease by whichever process processes them, so
 * processing is at least once and survives a crash (an expired lease is claimed again). A lease carries
 * a token that fences it (docs/operations.md "Several processes"): marking an event needs the token of
 * the lease that holds it, so a process that paused past its lease and resumes changes nothing.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from './database';
import { LeaseLostError, type Lease } from './leases';
import { deleteInBatches } from './retention';

export interface IncomingEvent {
	eventId: string;
	/** False when `eventId` is the unsigned `X-Service-Event-Id`: the body's bytes then identify the event as well. */
	idInBody: boolean;
	eventType: string;
	deliveryId: string | null;
	attempt: number | null;
	rawBody: string;
	/** The id of the request that stored it (request-context.ts): its processing logs under it. None outside a request. */
	requestId?: string | null;
}

export interface StoredEvent {
	seq: number;
	eventId: string;
	eventType: string;
	rawBody: string;
	/** Failed processing attempts so far. */
	processAttempts: number;
	receivedAt: Date;
	/** The token of the lease this event was claimed under; null without leases (one process). */
	leaseToken: string | null;
	/** The id of the request that stored it; null for events stored before the inbox kept it. */
	requestId: string | null;
}

/**
 * Inserts a batch in one statement; returns the ids that were new (the others were already stored) with
 * their queue position. Duplicates inside the batch are inserted once. An event is a duplicate when its id
 * was stored, or, without an id in its body, when the same body was: both are unique in the table, so
 * processes storing at once keep one.
 */
export async function storeWebhookEvents(db: Queryable, events: readonly IncomingEvent[], now: Date): Promise<Map<string, number>> {
	if (events.length === 0) return new Map();
	const rows = await db.query<{ event_id: string; seq: number }>(
		`insert into webhook_events (event_id, event_type, delivery_id, attempt, raw_body, body_digest, request_id, received_at, next_attempt_at)
		 select event_id, event_type, delivery_id, attempt, raw_body, body_digest, request_id, $7, $7
		 from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $8::text[])
			as e (event_id, event_type, delivery_id, attempt, raw_body, body_digest, request_id)
		 on conflict do nothing
		 returning event_id, seq`,
		[
			events.map((event) => event.eventId),
			events.map((event) => event.eventType),
			events.map((event) => event.deliveryId),
			events.map((event) => event.attempt),
			events.map((event) => event.rawBody),
			events.map((event) => (event.idInBody ? null : createHash('sha256').update(event.rawBody).digest('hex'))),
			now,
			events.map((event) => event.requestId ?? null)
		]
	);
	return new Map(rows.map((row) => [row.event_id, row.seq]));
}

interface EventRow {
	seq: number;
	event_id: string;
	event_type: string;
	raw_body: string;
	process_attempts: number;
	received_at: Date;
	request_id: string | null;
}

/**
 * Up to `limit` due events, oldest first. With a `lease` (several server processes on PostgreSQL) they are
 * leased for `lease.ms` under its token and other processes skip them meanwhile; without (PGlite: one
 * process, one processor) they are only read, which spares rewriting every event's row once more.
 */
export async function claimDueEvents(db: Queryable, limit: number, lease: Lease | null, now: Date): Promise<StoredEvent[]> {
	const rows =
		lease === null
			? await db.query<EventRow>(
					`select seq, event_id, event_type, raw_body, process_attempts, received_at, request_id from webhook_events
					 where state = 'pending' and next_attempt_at <= $1 order by seq limit $2`,
					[now, limit]
				)
			: await db.query<EventRow>(
					`update webhook_events set locked_until = $2, lease_token = $4
					 where seq in (
						select seq from webhook_events
						where state = 'pending' and next_attempt_at <= $1 and (locked_until is null or locked_until <= $1)
						order by seq limit $3
						for update skip locked)
					 returning seq, event_id, event_type, raw_body, process_attempts, received_at, request_id`,
					[now, new Date(now.getTime() + lease.ms), limit, lease.token]
				);
	return rows
		.map((row) => ({
			seq: row.seq,
			eventId: row.event_id,
			eventType: row.event_type,
			rawBody: row.raw_body,
			processAttempts: row.process_attempts,
			receivedAt: new Date(row.received_at),
			leaseToken: lease?.token ?? null,
			requestId: row.request_id
		}))
		.sort((a, b) => a.seq - b.seq);
}

/** Extends the lease on those of `seqs` it still holds; returns how many. */
export async function renewLease(db: Queryable, seqs: readonly number[], lease: Lease, now: Date): Promise<number> {
	const rows = await db.query(
		`update webhook_events set locked_until = $3 where seq = any($1::bigint[]) and lease_token = $2 and state = 'pending' returning seq`,
		[seqs, lease.token, new Date(now.getTime() + lease.ms)]
	);
	return rows.length;
}

/** Gives back the events of `seqs` this lease still holds, unprocessed, for any process to claim at once. */
export async function releaseLease(db: Queryable, seqs: readonly number[], token: string): Promise<void> {
	await db.query(
		`update webhook_events set locked_until = null, lease_token = null where seq = any($1::bigint[]) and lease_token = $2 and state = 'pending'`,
		[seqs, token]
	);
}

/** Marks events processed; fails with LeaseLostError (rolling back the caller's transaction) unless the lease holds them all. */
export async function markEventsProcessed(db: Queryable, seqs: readonly number[], leaseToken: string | null, now: Date): Promise<void> {
	const rows = await db.query(
		`update webhook_events set state = 'processed', processed_at = $2, locked_until = null, lease_token = null, last_error = null
		 where seq = any($1::bigint[]) and state = 'pending' and lease_token is not distinct from $3 returning seq`,
		[seqs, now, leaseToken]
	);
	if (rows.length !== seqs.length) throw new LeaseLostError(`${seqs.length} webhook events: ${rows.length} are still held`);
}

/** A transient failure: the event is tried again at `nextAttemptAt` (nothing changes when the lease was lost). */
export async function markEventForRetry(db: Queryable, event: StoredEvent, error: string, nextAttemptAt: Date): Promise<void> {
	await db.query(
		`update webhook_events set next_attempt_at = $2, last_error = $3, locked_until = null, lease_token = null, process_attempts = process_attempts + 1
		 where seq = $1 and state = 'pending' and lease_token is not distinct from $4`,
		[event.seq, nextAttemptAt, error, event.leaseToken]
	);
}

/** A permanent failure (`rejected`: the event itself is malformed; `failed`: given up after many attempts). */
export async function markEventFailed(
	db: Queryable,
	event: StoredEvent,
	state: 'rejected' | 'failed',
	error: string,
	now: Date
): Promise<void> {
	await db.query(
		`update webhook_events set state = $2, last_error = $3, processed_at = $4, locked_until = null, lease_token = null, process_attempts = process_attempts + 1
		 where seq = $1 and state = 'pending' and lease_token is not distinct from $5`,
		[event.seq, state, error, now, event.leaseToken]
	);
}

/** When the earliest pending event becomes due (undefined when none waits). */
export async function nextDueAt(db: Queryable): Promise<Date | undefined> {
	const [row] = await db.query<{ due: Date | null }>(
		`select min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) as due from webhook_events where state = 'pending'`
	);
	return row?.due ? new Date(row.due) : undefined;
}

export async function eventStates(
	db: Queryable,
	eventIds: readonly string[]
): Promise<Map<string, { state: string; lastError: string | null }>> {
	const rows = await db.query<{ event_id: string; state: string; last_error: string | null }>(
		'select event_id, state, last_error from webhook_events where event_id = any($1::text[])',
		[eventIds]
	);
	return new Map(rows.map((row) => [row.event_id, { state: row.state, lastError: row.last_error }]));
}

/** Events processed or set aside are kept this long (duplicates of them are still recognised), then deleted. */
export const WEBHOOK_RETENTION_MS = 7 * 24 * 3600_000;

export async function pruneWebhookEvents(db: Queryable, now: Date): Promise<void> {
	const expiry = { table: 'webhook_events', key: 'seq', expired: "state <> 'pending' and processed_at < $1" };
	await deleteInBatches(db, expiry, new Date(now.getTime() - WEBHOOK_RETENTION_MS));
}

/** The stored events not processed yet, and the age of the oldest in seconds (docs/operations.md "Readiness"). */
export async function pendingQueue(db: Queryable, now: Date): Promise<{ depth: number; oldestAgeSeconds: number }> {
	const [row] = await db.query<{ depth: number; oldest: Date | null }>(
		"select count(*)::int as depth, min(received_at) as oldest from webhook_events where state = 'pending'"
	);
	const oldestAgeSeconds = row.oldest ? Math.max(0, Math.round((now.getTime() - new Date(row.oldest).getTime()) / 1000)) : 0;
	return { depth: row.depth, oldestAgeSeconds };
}
