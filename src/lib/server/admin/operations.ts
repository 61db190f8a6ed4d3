/**
 * What admins watch (docs/inbox-api.md "Administration"): the service's webhook deliveries and the
 * retry operation (contract 4, contract-gaps §9), the events this inbox received with their processing
 * state (contract 5.2), and the conversations' trust states (contract 6.3).
 */
import { ContractError } from '../../errors';
import { v1, type DeliveryRecord } from '../../wire/v1';
import { isoSeconds } from '../../crypto/rules';
import { newIdempotencyKey } from '../db/operations';
import type { WithDatabase, WithService } from '../deps';

/** What the operations pages need of the server. */
export type OperationsDeps = WithDatabase & WithService;
import type { Trust } from '../../inbox-api/records';
import type { Delivery, DeliveryPage, ReceivedEventPage, TrustOverview } from '../../inbox-api/operations';

const DELIVERY_STATUSES: readonly DeliveryRecord['status'][] = ['pending', 'succeeded', 'failed'];

function one(search: URLSearchParams, name: string): string | undefined {
	const values = search.getAll(name);
	if (values.length > 1) throw new ContractError('INVALID_REQUEST', `${name} appears more than once`);
	return values[0];
}

function integer(search: URLSearchParams, name: string, min: number, max: number, fallback: number): number {
	const value = one(search, name);
	if (value === undefined) return fallback;
	if (!/^[0-9]{1,15}$/.test(value) || Number(value) < min || Number(value) > max)
		throw new ContractError('INVALID_REQUEST', `${name} must be an integer from ${min} to ${max}`);
	return Number(value);
}

function choice<T extends string>(search: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
	const value = one(search, name);
	if (value !== undefined && !allowed.includes(value as T))
		throw new ContractError('INVALID_REQUEST', `${name} must be one of ${allowed.join(', ')}`);
	return value as T | undefined;
}

export async function listDeliveries(deps: OperationsDeps, search: URLSearchParams): Promise<DeliveryPage> {
	const cursor = one(search, 'cursor');
	const { value } = await deps.upstream.call(
		v1.listDeliveries({ status: choice(search, 'status', DELIVERY_STATUSES), limit: integer(search, 'limit', 1, 200, 50), cursor })
	);
	return value;
}

/** The retry operation (contract 4): one immediate attempt by the service; the browser's key makes a retry of it safe. */
export async function retryDelivery(deps: OperationsDeps, deliveryId: string, idempotencyKey: string | undefined): Promise<Delivery> {
	const { value } = await deps.upstream.call(v1.retryDelivery(deliveryId), { idempotencyKey: idempotencyKey ?? newIdempotencyKey() });
	return value;
}

const EVENT_STATES = ['received', 'processed', 'failed'] as const;
type EventState = (typeof EVENT_STATES)[number];
/** The queue's states as admins read them: rejected (malformed, never retried) counts as failed. */
const STORED_STATES: Record<EventState, string[]> = { received: ['pending'], processed: ['processed'], failed: ['failed', 'rejected'] };

interface EventRow {
	seq: number;
	event_id: string;
	event_type: string;
	delivery_id: string | null;
	state: string;
	process_attempts: number;
	last_error: string | null;
	received_at: Date;
	processed_at: Date | null;
}

export async function listReceivedEvents(deps: OperationsDeps, search: URLSearchParams): Promise<ReceivedEventPage> {
	const state = choice(search, 'state', EVENT_STATES);
	const limit = integer(search, 'limit', 1, 200, 50);
	const before = integer(search, 'before', 1, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
	const rows = await deps.db.query<EventRow>(
		`select seq, event_id, event_type, delivery_id, state, process_attempts, last_error, received_at, processed_at
		 from webhook_events where seq < $1 and ($2::text[] is null or state = any($2::text[])) order by seq desc limit $3`,
		[before, state ? STORED_STATES[state] : null, limit + 1]
	);
	const page = rows.slice(0, limit);
	return {
		data: page.map((row) => ({
			seq: Number(row.seq),
			eventId: row.event_id,
			type: row.event_type,
			deliveryId: row.delivery_id,
			state: row.state === 'pending' ? 'received' : row.state === 'processed' ? 'processed' : 'failed',
			rejected: row.state === 'rejected',
			attempts: row.process_attempts,
			lastError: row.last_error,
			receivedAt: isoSeconds(row.received_at),
			processedAt: row.processed_at ? isoSeconds(row.processed_at) : null
		})),
		nextCursor: rows.length > limit ? String(page[page.length - 1].seq) : null
	};
}

/** A conversation's trust as stored (the column's check allows the contract's three states only). */
interface ConversationTrustRow {
	conversation_id: string;
	status: string;
	trust: Trust | null;
	key_version: number | null;
	last_activity_at: Date;
}

export async function listTrust(deps: OperationsDeps, search: URLSearchParams): Promise<TrustOverview> {
	const trust = choice(search, 'trust', ['verified', 'unverified', 'binding_invalid'] as const);
	const limit = integer(search, 'limit', 1, 500, 200);
	const rows = await deps.db.query<ConversationTrustRow>(
		`select conversation_id, status, trust, key_version, last_activity_at from conversations
		 where trust is not null and ($1::text is null or trust = $1) order by last_activity_at desc, conversation_id limit $2`,
		[trust ?? null, limit]
	);
	const counts = await deps.db.query<{ trust: string; count: string }>(
		'select trust, count(*) as count from conversations where trust is not null group by trust'
	);
	return {
		data: rows.map((row) => ({
			conversationId: row.conversation_id,
			status: row.status,
			trust: row.trust,
			keyVersion: row.key_version,
			lastActivityAt: isoSeconds(row.last_activity_at)
		})),
		counts: Object.fromEntries(
			['verified', 'unverified', 'binding_invalid'].map((name) => [name, Number(counts.find((row) => row.trust === name)?.count ?? 0)])
		)
	};
}
