/**
 * `/v1` conversation endpoints (contract 4, 6.4; docs/contract-gaps.md §4, §6): invites, list and
 * read, reinvite, rewrap, read marker, typing and close.
 */
import { ContractError, isoSeconds } from '../../lib/crypto/index';
import { conversationRecord } from '../records';
import {
	closeConversation,
	createInvitation,
	createReinvitation,
	findConversation,
	inviteResponse,
	requireExpiresIn,
	rewrapConversation
} from '../service/conversations';
import { findMessage, requireWritable } from '../service/messages';
import { CONVERSATION_STATUSES, type ConversationStatus } from '../state';
import { newestFirstPage } from './paging';
import { parseLimit } from './query';
import { ok, requireString, type V1Handler } from './request';

export const TYPING_SECONDS = 5;

export const createInvite: V1Handler = (ctx, request) =>
	ok(inviteResponse(ctx, createInvitation(ctx, request.company, requireExpiresIn(request.body))), 201);

export const listConversations: V1Handler = (ctx, request) => {
	const query = request.query;
	const status = query.get('status');
	if (status !== undefined && !CONVERSATION_STATUSES.includes(status as ConversationStatus)) {
		throw new ContractError('INVALID_REQUEST', `status must be one of ${CONVERSATION_STATUSES.join(', ')}`);
	}
	const limit = parseLimit(query.get('limit'));
	const conversations = ctx.store
		.conversationsOf(request.company.companyId)
		.filter((item) => status === undefined || item.status === status);
	const page = newestFirstPage(conversations, (item) => [item.createdAtMs, item.conversationId], limit, query.get('cursor'));
	return ok({ data: page.data.map(conversationRecord), nextCursor: page.nextCursor });
};

export const getConversation: V1Handler = (ctx, request, params) => {
	return ok(conversationRecord(findConversation(ctx, request.company, params.id)));
};

export const reinvite: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	return ok(inviteResponse(ctx, createReinvitation(ctx, conversation, requireExpiresIn(request.body))), 201);
};

export const rewrap: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	if (request.body.wrapForUser === undefined) throw new ContractError('INVALID_REQUEST', 'wrapForUser is required');
	rewrapConversation(ctx, conversation, request.body.wrapForUser);
	return ok(conversationRecord(conversation));
};

export const markRead: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	const message = findMessage(conversation, requireString(request.body, 'upToMessageId'));
	const current = conversation.companyReadUpTo === null ? null : findMessage(conversation, conversation.companyReadUpTo);
	if (current === null || message.seq > current.seq) {
		conversation.companyReadUpTo = message.messageId;
		ctx.store.changed('conversations', conversation.conversationId);
	}
	return ok({ conversationId: conversation.conversationId, readUpToMessageId: conversation.companyReadUpTo });
};

export const typing: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	requireWritable(conversation);
	// a few seconds' state: not worth a write to disk of its own (it goes with the conversation's next change)
	conversation.companyTypingUntilMs = ctx.clock.nowMs() + TYPING_SECONDS * 1000;
	return ok({ conversationId: conversation.conversationId, typingUntil: isoSeconds(conversation.companyTypingUntilMs) });
};

export const close: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	closeConversation(ctx, conversation);
	return ok(conversationRecord(conversation));
};
