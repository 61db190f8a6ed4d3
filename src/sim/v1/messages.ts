/**
 * `/v1` message endpoints (contract 4, 4.2, 7.3; docs/contract-gaps.md §5): the history with
 * `limit`, `before` and `after`, and sending with its checks in the documented order.
 */
import { ContractError, ID_RULE, isId } from '../../lib/crypto/index';
import { messageItem } from '../records';
import { findConversation } from '../service/conversations';
import {
	appendMessage,
	findByClientMessageId,
	findMessage,
	requireEnvelope,
	requireKeyVersion,
	requireUsableAttachment,
	requireWritable
} from '../service/messages';
import type { Message } from '../state';
import { parseLimit } from './query';
import { ok, requireObject, requireString, type V1Handler } from './request';

export const CONTENT_TYPES = ['text', 'attachment'] as const;

export const history: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	const query = request.query;
	const limit = parseLimit(query.get('limit'));
	const before = query.get('before');
	const after = query.get('after');
	if (before !== undefined && after !== undefined) throw new ContractError('INVALID_REQUEST', 'give at most one of before and after');
	const messages = conversation.messages;
	let candidates: Message[];
	let page: Message[];
	if (after !== undefined) {
		candidates = messages.slice(findMessage(conversation, after).seq);
		page = candidates.slice(0, limit);
	} else {
		candidates = before === undefined ? messages : messages.slice(0, findMessage(conversation, before).seq - 1);
		page = candidates.slice(Math.max(0, candidates.length - limit));
	}
	return ok({ data: page.map((message) => messageItem(conversation.conversationId, message)), hasMore: candidates.length > limit });
};

/**
 * Checks in the order of docs/contract-gaps.md §5. A `conversationId` outside the id rule (contract
 * 1.1) is a malformed body (`400 INVALID_REQUEST`), not an unknown conversation; a missing
 * `encryption` is an envelope without its shape (`400 INVALID_ENVELOPE`), checked after the body.
 */
export const send: V1Handler = (ctx, request) => {
	const conversationId = requireString(request.body, 'conversationId');
	if (!isId(conversationId)) throw new ContractError('INVALID_REQUEST', `conversationId must match ${ID_RULE.source}`);
	const contentType = request.body.contentType;
	if (!CONTENT_TYPES.includes(contentType as (typeof CONTENT_TYPES)[number])) {
		throw new ContractError('INVALID_REQUEST', 'contentType must be text or attachment');
	}
	const hasAttachment = request.body.attachment !== undefined;
	if (hasAttachment !== (contentType === 'attachment')) {
		throw new ContractError('INVALID_REQUEST', 'attachment is present exactly when contentType is attachment');
	}
	const attachmentId = hasAttachment ? requireString(requireObject(request.body, 'attachment'), 'attachmentId') : null;
	const encryption = requireEnvelope(request.body.encryption);
	const conversation = findConversation(ctx, request.company, conversationId);
	const earlier = findByClientMessageId(conversation, 'company', encryption.clientMessageId);
	if (earlier) return ok(messageItem(conversation.conversationId, earlier));
	requireWritable(conversation);
	requireKeyVersion(conversation, encryption);
	const attachment = attachmentId === null ? null : requireUsableAttachment(ctx, conversation, attachmentId);
	const message = appendMessage(ctx, conversation, { senderType: 'company', contentType: contentType as string, encryption, attachment });
	return ok(messageItem(conversation.conversationId, message), 201);
};
