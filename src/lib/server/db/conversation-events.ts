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

export async function recordConversationEvent(
	tx: Queryable,
	event: { conversationId: string; kind: ConversationKeyEventKind; actor: Account | null; details?: Record<string, string> },
	now: Date
): Promise<void> {
	await tx.query(
		`insert into conversation_events (conversation_id, kind, actor_account_id, actor_name, details, created_at)
		 values ($1, $2, $3, $4, $5, $6)`,
		[
			event.conversationId,
			event.kind,
			event.actor?.accountId ?? null,
			event.actor?.displayName ?? null,
			JSON.stringify(event.details ?? {}),
			now
		]
	);
}

/** The SQL of a view's `keyEvents`: the latest events of conversation `c`, oldest first. */
export const KEY_EVENTS_SELECT = `coalesce((select jsonb_agg(jsonb_build_object(
	'kind', e.kind, 'actorName', e.actor_name, 'at', to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'details', e.details
) order by e.event_id) from (select * from conversation_events where conversation_id = c.conversation_id
	order by event_id desc limit ${KEY_EVENTS_IN_VIEW}) e), '[]'::jsonb)`;

export type { ConversationKeyEvent };
