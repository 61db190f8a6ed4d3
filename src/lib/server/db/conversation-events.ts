/**
 * The key events of a conversation (docs/threat-model.md, "A signed-in agent"; contract 6.4): who
 * re-invited the customer, when the customer's key changed and to which fingerprint, and who approved
 * giving the new key the history. Written in the transaction of the change they describe, shown in the
 * thread of every agent.
 */
import type { ConversationKeyEvent, ConversationKeyEventKind } from '../../inbox-api/records';
import type { Account } from './accounts';
import type { Queryable } from './database';

/** How many of the latest key events a conversation's view carries. */
export const KEY_EVENTS_IN_VIEW = 20;

/** Appends a line about a conversation to `table` (`conversation_events` or `conversation_activity`). */
export async function insertConversationLine(
	tx: Queryable,
	table: 'conversation_events' | 'conversation_activity',
	line: { conversationId: string; kind: string; actor: Account | null; details?: object },
	now: Date
): Promise<void> {
	await tx.query(
		`insert into ${table} (conversation_id, kind, actor_account_id, actor_name, details, created_at) values ($1, $2, $3, $4, $5, $6)`,
		[
			line.conversationId,
			line.kind,
			line.actor?.accountId ?? null,
			line.actor?.displayName ?? null,
			JSON.stringify(line.details ?? {}),
			now
		]
	);
}

export async function recordConversationEvent(
	tx: Queryable,
	event: { conversationId: string; kind: ConversationKeyEventKind; actor: Account | null; details?: Record<string, string> },
	now: Date
): Promise<void> {
	await insertConversationLine(tx, 'conversation_events', event, now);
}

/**
 * The SQL of a view's list of the latest `limit` rows of `table` (ordered by `id`) for conversation `c`,
 * oldest first, each as `{ kind, actorName, at, details }`.
 */
export function latestOfConversation(table: string, id: string, limit: number): string {
	return `coalesce((select jsonb_agg(jsonb_build_object(
	'kind', e.kind, 'actorName', e.actor_name, 'at', to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'details', e.details
) order by e.${id}) from (select * from ${table} where conversation_id = c.conversation_id
	order by ${id} desc limit ${limit}) e), '[]'::jsonb)`;
}

/** The SQL of a view's `keyEvents`: the latest events of conversation `c`, oldest first. */
export const KEY_EVENTS_SELECT = latestOfConversation('conversation_events', 'event_id', KEY_EVENTS_IN_VIEW);

export type { ConversationKeyEvent };
