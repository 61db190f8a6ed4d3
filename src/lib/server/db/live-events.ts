/**
 * The log behind `GET /api/events` (docs/inbox-api.md §7): each change is appended in the transaction that
 * makes it, and announced with NOTIFY, which PostgreSQL delivers to every process on commit. An advisory
 * lock held to commit keeps ids in commit order, so a reader that saw id n never misses an id below n.
 */
import type { Queryable } from './database';
import { deleteInBatches } from './retention';

export const LIVE_CHANNEL = 'inbox_live';
/** Carries the token hash of a session that ended (logout), so every process closes its streams. */
export const SESSION_ENDED_CHANNEL = 'inbox_session_ended';
/** An account's key changed (registered, replaced, reset): its live streams read the account again. */
export const ACCOUNT_CHANGED_CHANNEL = 'inbox_account_changed';
/** Held to commit by every writer of live events, so ids become visible in order. */
export const LIVE_ORDER_LOCK = 7_270_502;
export const LIVE_RETENTION_MS = 24 * 3600_000;

export type LiveEventType =
	| 'conversation.started'
	| 'conversation.changed'
	| 'message.created'
	| 'message.read'
	| 'note.created'
	| 'mention.created'
	| 'mention.read'
	| 'presence'
	| 'labels.changed'
	| 'teams.changed'
	| 'settings.changed'
	| 'team.changed'
	| 'grant.progress';

export interface LiveEvent {
	id: number;
	type: LiveEventType;
	conversationId: string | null;
	payload: Record<string, unknown>;
}

export interface NewLiveEvent {
	type: LiveEventType;
	conversationId: string | null;
	payload: Record<string, unknown>;
}

/** Appends events in the caller's transaction (one statement, one NOTIFY); returns their ids in order. */
export async function appendLiveEvents(tx: Queryable, events: readonly NewLiveEvent[], now: Date): Promise<number[]> {
	if (events.length === 0) return [];
	const [row] = await tx.query<{ ids: number[] }>(
		`with ordered as (select pg_advisory_xact_lock($5)),
		 added as (
			insert into live_events (type, conversation_id, payload, created_at)
			select e.type, e.conversation_id, e.payload, $4
			from ordered, unnest($1::text[], $2::text[], $3::jsonb[]) with ordinality as e (type, conversation_id, payload, position)
			order by e.position
			returning id)
		 select array_agg(id order by id) as ids, pg_notify($6, max(id)::text) from added`,
		[
			events.map((event) => event.type),
			events.map((event) => event.conversationId),
			events.map((event) => JSON.stringify(event.payload)),
			now,
			LIVE_ORDER_LOCK,
			LIVE_CHANNEL
		]
	);
	return row.ids.map(Number);
}

export async function appendLiveEvent(
	tx: Queryable,
	type: LiveEventType,
	conversationId: string | null,
	payload: Record<string, unknown>,
	now: Date
): Promise<number> {
	const [id] = await appendLiveEvents(tx, [{ type, conversationId, payload }], now);
	return id;
}

interface LiveRow {
	id: number;
	type: LiveEventType;
	conversation_id: string | null;
	payload: Record<string, unknown>;
}

export async function liveEventsAfter(db: Queryable, afterId: number, limit: number): Promise<LiveEvent[]> {
	const rows = await db.query<LiveRow>('select id, type, conversation_id, payload from live_events where id > $1 order by id limit $2', [
		afterId,
		limit
	]);
	return rows.map((row) => ({ id: row.id, type: row.type, conversationId: row.conversation_id, payload: row.payload }));
}

/** The newest id (0 when the log is empty). */
export async function newestLiveEventId(db: Queryable): Promise<number> {
	const [row] = await db.query<{ newest: number | null }>('select max(id) as newest from live_events');
	return row?.newest ?? 0;
}

/** The newest id, and the oldest still kept (0 when the log is empty). */
export async function liveEventBounds(db: Queryable): Promise<{ oldest: number; newest: number }> {
	const [row] = await db.query<{ oldest: number | null; newest: number | null }>(
		'select min(id) as oldest, max(id) as newest from live_events'
	);
	return { oldest: row?.oldest ?? 0, newest: row?.newest ?? 0 };
}

export async function pruneLiveEvents(db: Queryable, now: Date): Promise<void> {
	await deleteInBatches(db, { table: 'live_events', key: 'id', expired: 'created_at < $1' }, new Date(now.getTime() - LIVE_RETENTION_MS));
}
