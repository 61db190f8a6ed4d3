/**
 * Messages of the simulated service (contract 2.5, 4.2, 7.3; docs/contract-gaps.md §5): the
 * envelope shape checks, the conversation checks of 7.3 in their fixed order, and storing a message
 * from either side (`message.created` only for the user's).
 */
import { ContractError, envelopeShapeProblem, type Envelope } from '../../lib/crypto/index';
import type { SimContext } from '../context';
import { newMessageId } from '../ids';
import type { Attachment, Conversation, Message, SenderType } from '../state';
import { emitMessageCreated } from '../webhooks/events';
import { reopenIfClosed } from './conversations';

/** The envelope's shape (contract 4.2 rule 3) or `400 INVALID_ENVELOPE`; returns a clean copy. */
export function requireEnvelope(value: unknown): Envelope {
	const problem = envelopeShapeProblem(value);
	if (problem !== null) throw new ContractError('INVALID_ENVELOPE', problem);
	const envelope = value as Envelope;
	return {
		v: 1,
		scheme: 'sc1',
		keyVersion: envelope.keyVersion,
		clientMessageId: envelope.clientMessageId,
		nonce: envelope.nonce,
		ciphertext: envelope.ciphertext
	};
}

/** The earlier message of this sender with this `clientMessageId`, if any. */
export function findByClientMessageId(conversation: Conversation, senderType: SenderType, clientMessageId: string): Message | undefined {
	return conversation.messages.find(
		(message) => message.senderType === senderType && message.encryption.clientMessageId === clientMessageId
	);
}

/** `410 USER_DELETED`, `409 CONVERSATION_PENDING`, `409 CONVERSATION_AWAITING_KEY`, in this order. */
export function requireWritable(conversation: Conversation): void {
	if (conversation.userDeleted) throw new ContractError('USER_DELETED', 'the user of this conversation was deleted');
	if (conversation.status === 'pending') throw new ContractError('CONVERSATION_PENDING', 'the conversation has not started yet');
	if (conversation.status === 'awaiting_key') {
		throw new ContractError('CONVERSATION_AWAITING_KEY', 'the conversation is waiting for the key to be re-sealed for the new device');
	}
}

export function requireKeyVersion(conversation: Conversation, envelope: Envelope): void {
	if (envelope.keyVersion !== conversation.keyVersion) {
		throw new ContractError(
			'KEY_VERSION_MISMATCH',
			`the envelope keyVersion ${envelope.keyVersion} differs from the conversation's ${conversation.keyVersion}`
		);
	}
}

/** The attachment a message refers to: in this conversation, uploaded, not yet used. */
export function requireUsableAttachment(ctx: SimContext, conversation: Conversation, attachmentId: string): Attachment {
	const attachment = ctx.store.attachments.get(attachmentId);
	if (!attachment || attachment.conversationId !== conversation.conversationId) {
		throw new ContractError('ATTACHMENT_NOT_FOUND', `no attachment ${attachmentId} in this conversation`);
	}
	if (attachment.uploadedAtMs === null)
		throw new ContractError('ATTACHMENT_NOT_UPLOADED', `the bytes of ${attachmentId} were not uploaded`);
	if (attachment.usedByMessageId !== null) {
		throw new ContractError('ATTACHMENT_ALREADY_USED', `${attachmentId} was already used by message ${attachment.usedByMessageId}`);
	}
	return attachment;
}

/** Stores a checked message; a closed conversation reopens; the user's messages become events. */
export function appendMessage(
	ctx: SimContext,
	conversation: Conversation,
	input: { senderType: SenderType; contentType: string; encryption: Envelope; attachment: Attachment | null }
): Message {
	const now = ctx.clock.nowMs();
	const message: Message = {
		messageId: newMessageId(),
		seq: conversation.messages.length + 1,
		senderType: input.senderType,
		contentType: input.contentType,
		encryption: input.encryption,
		attachment: input.attachment ? { attachmentId: input.attachment.attachmentId, size: input.attachment.size } : null,
		createdAtMs: now
	};
	if (input.attachment) {
		input.attachment.usedByMessageId = message.messageId;
		ctx.store.changed('attachments', input.attachment.attachmentId);
	}
	conversation.messages.push(message);
	conversation.lastMessageAtMs = now;
	reopenIfClosed(ctx, conversation);
	ctx.store.changed('conversations', conversation.conversationId);
	if (message.senderType === 'user') emitMessageCreated(ctx.webhooks, conversation, message);
	return message;
}

export function findMessage(conversation: Conversation, messageId: string): Message {
	const message = conversation.messages.find((candidate) => candidate.messageId === messageId);
	if (!message) throw new ContractError('NOT_FOUND', `no message ${messageId} in this conversation`);
	return message;
}
