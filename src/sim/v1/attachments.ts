/**
 * `/v1` attachment endpoints (contract 2.7, 2.8, 4.3, 8; docs/contract-gaps.md §8): creating an
 * upload (`201` with the upload record, `429 RATE_LIMITED` past 1,000 an hour) and the download
 * record.
 */
import { ContractError } from '../../lib/crypto/index';
import { errorResponse } from '../http/io';
import {
	createAttachment,
	downloadRecord,
	requireCiphertextSize,
	uploadRecord,
	UPLOADS_PER_HOUR,
	uploadRetryAfterSeconds
} from '../service/attachments';
import { findConversation } from '../service/conversations';
import { ok, type V1Handler } from './request';

export const createUpload: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	const size = requireCiphertextSize(request.body.size);
	if (conversation.userDeleted) throw new ContractError('USER_DELETED', 'the user of this conversation was deleted');
	if (conversation.status === 'pending') throw new ContractError('CONVERSATION_PENDING', 'the conversation has not started yet');
	const retryAfter = uploadRetryAfterSeconds(ctx, request.company);
	if (retryAfter !== null) {
		const limited = errorResponse(new ContractError('RATE_LIMITED', `at most ${UPLOADS_PER_HOUR} attachment uploads per company per hour`));
		return { ...limited, headers: { 'retry-after': String(retryAfter) } };
	}
	return ok(uploadRecord(ctx, createAttachment(ctx, request.company, conversation, size, 'company')), 201);
};

export const getDownload: V1Handler = (ctx, request, params) => {
	const conversation = findConversation(ctx, request.company, params.id);
	const attachment = ctx.store.attachments.get(params.attachmentId);
	if (!attachment || attachment.conversationId !== conversation.conversationId) {
		throw new ContractError('ATTACHMENT_NOT_FOUND', `no attachment ${params.attachmentId} in this conversation`);
	}
	return ok(downloadRecord(ctx, attachment));
};
