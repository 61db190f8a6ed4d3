/**
 * The wire records of `/v1` where the contract says "not shown" (contract 2.10), exactly as
 * docs/contract-gaps.md §4, §5 and §9 fix them: conversation, history item, delivery.
 */
import { isoSeconds } from '../lib/crypto/index';
import type { Conversation, Delivery, Message } from './state';

function isoOrNull(ms: number | null): string | null {
	return ms === null ? null : isoSeconds(ms);
}

export function conversationRecord(conversation: Conversation) {
	return {
		conversationId: conversation.conversationId,
		status: conversation.status,
		keyVersion: conversation.keyVersion,
		wrapForCompany: conversation.wrapForCompany,
		userPublicKey: conversation.userPublicKey,
		userDeleted: conversation.userDeleted,
		createdAt: isoSeconds(conversation.createdAtMs),
		startedAt: isoOrNull(conversation.startedAtMs),
		lastMessageAt: isoOrNull(conversation.lastMessageAtMs),
		closedAt: isoOrNull(conversation.closedAtMs)
	};
}

export function messageItem(conversationId: string, message: Message) {
	return {
		messageId: message.messageId,
		conversationId,
		seq: message.seq,
		senderType: message.senderType,
		contentType: message.contentType,
		encryption: message.encryption,
		...(message.attachment ? { attachment: message.attachment } : {}),
		createdAt: isoSeconds(message.createdAtMs)
	};
}

export function deliveryRecord(delivery: Delivery) {
	return {
		deliveryId: delivery.deliveryId,
		eventId: delivery.eventId,
		eventType: delivery.eventType,
		status: delivery.status,
		attempts: delivery.attempts,
		lastStatus: delivery.lastStatus,
		lastError: delivery.lastError,
		nextAttemptAt: isoOrNull(delivery.nextAttemptAtMs),
		createdAt: isoSeconds(delivery.createdAtMs),
		updatedAt: isoSeconds(delivery.updatedAtMs)
	};
}
