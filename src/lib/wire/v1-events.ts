/**
 * Webhook bodies (contract 5.2, 6; docs/contract-gaps.md §9): the top level of a verified event and the
 * `data` of each event type the inbox acts on. Part of the wire module: import them through `./v1`.
 */
import type { Envelope } from '../crypto/message';
import type { Wrap } from '../crypto/wrap';
import { parseJson, Reader, type JsonObject } from './read';
import {
	CONVERSATION_STATUSES,
	readAgentWrap,
	readAttachmentRef,
	readEnvelope,
	type AgentWrap,
	type AttachmentRef,
	type ConversationStatus
} from './v1-records';

export interface WebhookEvent {
	id: string;
	/** False when the id came from `X-Service-Event-Id`, which the signature does not cover (contract 5.2). */
	idInBody: boolean;
	type: string;
	createdAt: string | null;
	companyId: string | null;
	data: JsonObject;
}

/** The top level of a verified webhook body: an object with an event id (the body's, else the header's). */
export function parseWebhookEvent(text: string, headerEventId?: string | null): WebhookEvent {
	const r = new Reader({ code: 'INVALID_REQUEST', status: 400 }, 'webhook');
	const o = r.object(parseJson(text, r), 'body');
	const idInBody = o.id !== undefined;
	return {
		id: r.id(idInBody ? o.id : headerEventId, 'event id'),
		idInBody,
		type: o.type === undefined ? 'unknown' : r.string(o.type, 'type'),
		createdAt: typeof o.createdAt === 'string' ? o.createdAt : null,
		companyId: typeof o.companyId === 'string' ? o.companyId : null,
		data: o.data === undefined ? {} : r.object(o.data, 'data')
	};
}

const eventReader = (type: string) => new Reader({ code: 'INVALID_INPUT' }, type);

export interface ConversationStarted {
	conversationId: string;
	/** The company wrap, with `sealed` exactly as received (the binding hashes it). */
	conversationKey: Wrap;
	userPublicKey: string;
	inviteBinding: string | null;
	isReinvite: boolean;
	agentWraps: AgentWrap[];
}

export function parseConversationStarted(data: JsonObject): ConversationStarted {
	const r = eventReader('conversation.started');
	return {
		conversationId: r.id(data.conversationId, 'conversationId'),
		conversationKey: r.wrap(data.conversationKey, 'conversationKey'),
		userPublicKey: r.b64u(data.userPublicKey, 'userPublicKey', 32),
		// Kept as received: a malformed binding fails the binding check (BINDING_INVALID), not the event.
		inviteBinding: data.inviteBinding === undefined || data.inviteBinding === null ? null : r.string(data.inviteBinding, 'inviteBinding'),
		isReinvite: data.isReinvite === undefined ? false : r.boolean(data.isReinvite, 'isReinvite'),
		agentWraps: data.agentWraps === undefined ? [] : r.array(data.agentWraps, 'agentWraps').map((wrap) => readAgentWrap(wrap, r))
	};
}

export interface MessageCreated {
	conversationId: string;
	/** The service's id; absent in the contract's own examples, so the event id stands in. */
	messageId: string | null;
	seq: number | null;
	senderType: 'user' | 'company';
	contentType: string;
	encryption: Envelope;
	conversationKey: Wrap | null;
	attachment: AttachmentRef | null;
	createdAt: string | null;
}

export function parseMessageCreated(data: JsonObject): MessageCreated {
	const r = eventReader('message.created');
	return {
		conversationId: r.id(data.conversationId, 'conversationId'),
		messageId: data.messageId === undefined ? null : r.id(data.messageId, 'messageId'),
		seq: data.seq === undefined ? null : r.integer(data.seq, 'seq', 1),
		senderType: data.senderType === undefined ? 'user' : r.oneOf(data.senderType, ['user', 'company'] as const, 'senderType'),
		contentType: r.string(data.contentType, 'contentType'),
		encryption: readEnvelope(data.encryption, r, 'encryption'),
		conversationKey: data.conversationKey === undefined ? null : r.wrap(data.conversationKey, 'conversationKey'),
		attachment: readAttachmentRef(data.attachment, r),
		createdAt: typeof data.createdAt === 'string' ? data.createdAt : null
	};
}

export function parseConversationUpdated(data: JsonObject): {
	conversationId: string;
	status: ConversationStatus | null;
	userDeleted: boolean | null;
} {
	const r = eventReader('conversation.updated');
	return {
		conversationId: r.id(data.conversationId, 'conversationId'),
		status: data.status === undefined ? null : r.oneOf(data.status, CONVERSATION_STATUSES, 'status'),
		userDeleted: data.userDeleted === undefined ? null : r.boolean(data.userDeleted, 'userDeleted')
	};
}

export function parseMessageRead(data: JsonObject): { conversationId: string; upToMessageId: string } {
	const r = eventReader('message.read');
	return { conversationId: r.id(data.conversationId, 'conversationId'), upToMessageId: r.id(data.upToMessageId, 'upToMessageId') };
}
