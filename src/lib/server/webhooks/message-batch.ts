/**
 * The common case of the webhook queue, a run of `message.created` events (contract 6), processed in a
 * single statement: the envelopes stored as received (once per message id), the conversations' last
 * activity (a resolved or snoozed conversation opens again, with a line of its activity), the live
 * events in commit order, and the events marked processed. One round trip holds the
 * database for the shortest time, so acknowledgements of new webhooks do not wait behind processing.
 */
import { parseMessageCreated, parseWebhookEvent, type WebhookEvent } from '../../wire/v1';
import { isoSeconds } from '../../crypto/rules';
import type { Database } from '../db/database';
import { LIVE_CHANNEL, LIVE_ORDER_LOCK } from '../db/live-events';
import { customerConversations, messageColumns, takeCustomerCounts, type StoredMessage } from '../db/messages';
import { keepingFirstResponses } from '../db/response-facts';
import { LeaseLostError } from '../db/leases';
import type { StoredEvent } from '../db/webhook-events';

export function dateOr(value: string | null, fallback: Date): Date {
	const parsed = value === null ? Number.NaN : Date.parse(value);
	return Number.isNaN(parsed) ? fallback : new Date(parsed);
}

/** A `message.created` event as the inbox stores it; throws a ContractError for malformed data. */
export function storedMessageOf(event: WebhookEvent, now: Date): { message: StoredMessage; eventId: string; createdAt: Date } {
	const data = parseMessageCreated(event.data);
	const createdAt = dateOr(data.createdAt ?? event.createdAt, now);
	const message: StoredMessage = {
		messageId: data.messageId ?? event.id,
		conversationId: data.conversationId,
		seq: data.seq,
		// Contract 6.2: a message that arrives by webhook is always the customer's, whatever the body says.
		senderType: 'user',
		contentType: data.contentType,
		encryption: data.encryption,
		attachment: data.attachment,
		createdAt: isoSeconds(createdAt)
	};
	return { message, eventId: event.id, createdAt };
}

/** The messages of `events` when every one is a well-formed `message.created`; otherwise undefined. */
export function messagesOf(events: readonly StoredEvent[], now: Date): { message: StoredMessage; eventId: string }[] | undefined {
	const messages: { message: StoredMessage; eventId: string }[] = [];
	for (const stored of events) {
		try {
			const event = parseWebhookEvent(stored.rawBody, stored.eventId);
			if (event.type !== 'message.created') return undefined;
			messages.push(storedMessageOf(event, now));
		} catch {
			return undefined;
		}
	}
	return messages;
}

// `held` fences the whole statement: unless this lease still holds every event (a process that paused past
// its lease and resumed does not), nothing is inserted, announced or marked.
const STATEMENT = `
with held as (
	select seq from webhook_events where seq = any($12::bigint[]) and state = 'pending' and lease_token is not distinct from $14 for update
),
incoming as (
	select * from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::timestamptz[], $9::text[])
		with ordinality as m (message_id, conversation_id, seq, sender_type, content_type, encryption, attachment, created_at, event_id, position)
	where (select count(*) from held) = cardinality($12::bigint[])
),
first_of_each as (
	select distinct on (message_id) * from incoming order by message_id, position
),
inserted as (
	insert into conversation_messages (message_id, conversation_id, seq, sender_type, content_type, encryption, attachment, created_at, event_id)
	select message_id, conversation_id, seq, sender_type, content_type, encryption, attachment, created_at, event_id from first_of_each
	on conflict (message_id) do nothing
	returning message_id, conversation_id, seq, sender_type, content_type, encryption, attachment, created_at
),
reopening as (
	select c.conversation_id, c.team_state from conversations c where c.conversation_id in (select conversation_id from inserted) and c.team_state <> 'open'
),
activity as (
	insert into conversations (conversation_id, status, created_at, last_activity_at, updated_at)
	select conversation_id, 'active', $10, max(created_at), $10 from inserted group by conversation_id
	on conflict (conversation_id) do update
	set last_activity_at = greatest(conversations.last_activity_at, excluded.last_activity_at), updated_at = excluded.updated_at,
		team_state = 'open', snoozed_until = null
	returning conversation_id
),
reopened as (
	insert into conversation_activity (conversation_id, kind, details, created_at)
	select conversation_id, 'reopened', jsonb_build_object('reason', 'customer_message', 'was', team_state), $10 from reopening
),
ordered as (select pg_advisory_xact_lock($11)),
announced as (
	insert into live_events (type, conversation_id, payload, created_at)
	select e.type, e.conversation_id, e.payload, $10 from ordered, (
		select 1 as kind, f.position, 'message.created' as type, m.conversation_id,
			jsonb_build_object('conversationId', m.conversation_id, 'message', jsonb_build_object(
				'messageId', m.message_id, 'conversationId', m.conversation_id, 'seq', m.seq, 'senderType', m.sender_type,
				'contentType', m.content_type, 'encryption', m.encryption, 'attachment', m.attachment,
				'createdAt', to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))) as payload
		from inserted m join first_of_each f on f.message_id = m.message_id
		union all
		select 2, 0, 'conversation.changed', a.conversation_id, jsonb_build_object('conversationId', a.conversation_id) from activity a
	) e
	order by e.kind, e.position, e.conversation_id
	returning id
),
processed as (
	update webhook_events set state = 'processed', processed_at = $10, locked_until = null, lease_token = null, last_error = null
	where seq in (select seq from held) and (select count(*) from held) = cardinality($12::bigint[]) returning seq
),
notified as (
	select pg_notify($13, max(id)::text) from announced having count(*) > 0
)
select (select count(*)::int from inserted) as stored, (select count(*)::int from processed) as processed, (select count(*)::int from notified) as notified`;

/**
 * Applies a run of well-formed `message.created` events and marks them processed, in one statement, and
 * keeps the conversations' first responses around it (db/response-facts.ts); LeaseLostError, with
 * nothing changed, when their lease no longer holds them all.
 */
export async function applyMessageBatch(
	db: Database,
	events: readonly StoredEvent[],
	messages: readonly { message: StoredMessage; eventId: string }[],
	now: Date
): Promise<{ stored: number }> {
	return db.transaction((tx) =>
		keepingFirstResponses(tx, customerConversations(messages), async () => {
			// the statement's trigger counts the customer's messages after it took the live events' lock
			await takeCustomerCounts(tx, customerConversations(messages));
			const [row] = await tx.query<{ stored: number; processed: number }>(STATEMENT, [
				...messageColumns(messages),
				now,
				LIVE_ORDER_LOCK,
				events.map((event) => event.seq),
				LIVE_CHANNEL,
				events[0]?.leaseToken ?? null
			]);
			if (row.processed !== events.length) throw new LeaseLostError(`${events.length} webhook events: ${row.processed} are still held`);
			return { stored: row.stored };
		})
	);
}
