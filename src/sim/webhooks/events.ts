/**
 * The events the simulated service emits (contract 6 and docs/contract-gaps.md §9):
 * `conversation.started`, `message.created` (only for the user's messages), `conversation.updated`
 * and `message.read`, each with `data.conversationId`.
 */
import type { Wrap } from '../../lib/crypto/index';
import { isoSeconds } from '../../lib/crypto/index';
import type { Conversation, Message, StoredAgentWrap } from '../state';
import type { WebhookDispatcher } from './delivery';

export function emitConversationStarted(
	webhooks: WebhookDispatcher,
	conversation: Conversation,
	input: { isReinvite: boolean; inviteBinding: string | null; agentWraps: StoredAgentWrap[] }
): void {
	webhooks.emit(conversation.companyId, 'conversation.started', {
		conversationId: conversation.conversationId,
		conversationKey: conversation.wrapForCompany as Wrap,
		userPublicKey: conversation.userPublicKey,
		...(input.inviteBinding !== null ? { inviteBinding: input.inviteBinding } : {}),
		isReinvite: input.isReinvite,
		agentWraps: input.agentWraps
	});
}

export function emitMessageCreated(webhooks: WebhookDispatcher, conversation: Conversation, message: Message): void {
	webhooks.emit(conversation.companyId, 'message.created', {
		conversationId: conversation.conversationId,
		messageId: message.messageId,
		seq: message.seq,
		senderType: message.senderType,
		contentType: message.contentType,
		encryption: message.encryption,
		conversationKey: conversation.wrapForCompany as Wrap,
		...(message.attachment ? { attachment: message.attachment } : {}),
		createdAt: isoSeconds(message.createdAtMs)
	});
}

export function emitConversationUpdated(webhooks: WebhookDispatcher, conversation: Conversation): void {
	webhooks.emit(conversation.companyId, 'conversation.updated', {
		conversationId: conversation.conversationId,
		status: conversation.status,
		userDeleted: conversation.userDeleted
	});
}

export function emitMessageRead(webhooks: WebhookDispatcher, conversation: Conversation, upToMessageId: string): void {
	webhooks.emit(conversation.companyId, 'message.read', { conversationId: conversation.conversationId, upToMessageId });
}
