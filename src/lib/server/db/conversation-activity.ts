/**
 * What the team did to a conversation (docs/inbox-api.md §4 `activity`): assignments and the
 * conversation's lifecycle, written in the transaction of the change, shown in every agent's thread.
 */
import type { ConversationActivity, ConversationActivityKind } from '../../inbox-api/records';
import type { Account } from './accounts';
import { insertConversationLine, latestOfConversation } from './conversation-events';
import type { Queryable } from './database';

/** How many of the latest lines a conversation's view carries. */
export const ACTIVITY_IN_VIEW = 20;

export const ACTIVITY_SELECT = latestOfConversation('conversation_activity', 'activity_id', ACTIVITY_IN_VIEW);

export async function recordActivityLine(
	tx: Queryable,
	line: { conversationId: string; kind: ConversationActivityKind; actor: Account | null; details?: ConversationActivity['details'] },
	now: Date
): Promise<void> {
	await insertConversationLine(tx, 'conversation_activity', line, now);
}
