/**
 * What the inbox keeps of an agent's successful request to the service (docs/inbox-api.md §6): a sent
 * message (stored as sent, last activity, the assignee when the team assigns on the first reply, a live
 * event for the other agents), a read pointer for the caller's unread count, and a closed conversation's
 * status.
 */
import { parseV1Response, type V1RouteName } from '../../wire/v1';
import type { Account } from '../db/accounts';
import { ensureConversation, recordActivity, updateStatus } from '../db/conversations';
import type { Database } from '../db/database';
import { appendLiveEvent, appendLiveEvents } from '../db/live-events';
import { markReadUpTo, storeMessage } from '../db/messages';
import { assignOnFirstReply } from './assignment';

function parsed(body: Uint8Array): unknown {
	return JSON.parse(new TextDecoder().decode(body));
}

export async function recordServiceEffects(
	db: Database,
	account: Account,
	route: V1RouteName,
	responseBody: Uint8Array,
	now: Date
): Promise<void> {
	switch (route) {
		case 'sendMessage': {
			const item = parseV1Response.historyItem(parsed(responseBody));
			await db.transaction(async (tx) => {
				if (!(await storeMessage(tx, item, null))) return;
				await recordActivity(tx, item.conversationId, new Date(item.createdAt), now);
				await assignOnFirstReply(tx, account, item.conversationId, now);
				await appendLiveEvents(
					tx,
					[
						{
							type: 'message.created',
							conversationId: item.conversationId,
							payload: { conversationId: item.conversationId, message: item }
						},
						{ type: 'conversation.changed', conversationId: item.conversationId, payload: { conversationId: item.conversationId } }
					],
					now
				);
			});
			return;
		}
		case 'markRead': {
			const receipt = parseV1Response.readReceipt(parsed(responseBody));
			await db.transaction(async (tx) => {
				if (await markReadUpTo(tx, account.accountId, receipt.conversationId, receipt.readUpToMessageId, now)) {
					await appendLiveEvent(tx, 'conversation.changed', receipt.conversationId, { conversationId: receipt.conversationId }, now);
				}
			});
			return;
		}
		case 'close': {
			const record = parseV1Response.conversation(parsed(responseBody));
			await db.transaction(async (tx) => {
				await ensureConversation(tx, record.conversationId, record.status, now);
				await updateStatus(tx, record.conversationId, { status: record.status }, now);
				await appendLiveEvent(tx, 'conversation.changed', record.conversationId, { conversationId: record.conversationId }, now);
			});
			return;
		}
		// Stryker disable next-line all: equivalent: the function ends right after the switch, so a default without its return returns too
		default:
			return;
	}
}
