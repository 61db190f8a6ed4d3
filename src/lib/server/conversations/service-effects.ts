/**
 * What the inbox keeps of successful proxied requests (docs/inbox-api.md §6): a sent message (stored
 * as sent, last activity, the assignee when the team assigns on the first reply, a live event for the
 * other agents), a read pointer for the caller's unread
 * count, and a closed conversation's status.
 */
import { parseV1Response } from '../../wire/v1';
import type { Session } from '../auth/sessions';
import { assignOnFirstReply } from '../conversations/assignment';
import { ensureConversation, recordActivity, updateStatus } from '../db/conversations';
import { appendLiveEvent, appendLiveEvents } from '../db/live-events';
import { markReadUpTo, storeMessage } from '../db/messages';
import type { Inbox } from '../inbox';
import type { AllowedRequest } from './allowlist';

function parsed(body: Uint8Array): unknown {
	return JSON.parse(new TextDecoder().decode(body));
}

export async function recordProxiedEffects(
	inbox: Inbox,
	session: Session,
	allowed: AllowedRequest,
	requestBody: string,
	responseBody: Uint8Array
): Promise<void> {
	const now = new Date(inbox.now());
	switch (allowed.route) {
		case 'sendMessage': {
			const item = parseV1Response.historyItem(parsed(responseBody));
			await inbox.db.transaction(async (tx) => {
				if (!(await storeMessage(tx, item, null))) return;
				await recordActivity(tx, item.conversationId, new Date(item.createdAt), now);
				await assignOnFirstReply(tx, session.account, item.conversationId, now);
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
			await inbox.db.transaction(async (tx) => {
				if (await markReadUpTo(tx, session.account.accountId, receipt.conversationId, receipt.readUpToMessageId, now)) {
					await appendLiveEvent(tx, 'conversation.changed', receipt.conversationId, { conversationId: receipt.conversationId }, now);
				}
			});
			return;
		}
		case 'close': {
			const record = parseV1Response.conversation(parsed(responseBody));
			await inbox.db.transaction(async (tx) => {
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
