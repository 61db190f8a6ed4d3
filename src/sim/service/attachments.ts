/**
 * Attachments of the simulated service (contract 2.7, 2.8, 4.3, 8; docs/contract-gaps.md §8):
 * creating an upload (ciphertext size 16 … 26,220,800, at most 1,000 per company per hour), the
 * upload record with its presigned PUT, and the download record with its presigned GET.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ContractError, b64uEncode, isIntegerIn, MAX_ATTACHMENT_CIPHERTEXT } from '../../lib/crypto/index';
import type { SimContext } from '../context';
import { newAttachmentId } from '../ids';
import type { Attachment, Company, Conversation, SenderType } from '../state';

export const MIN_ATTACHMENT_CIPHERTEXT = 16;
export const UPLOADS_PER_HOUR = 1000;
export const PRESIGNED_URL_SECONDS = 300;
export const UPLOAD_HEADERS = Object.freeze({ 'content-type': 'application/octet-stream', 'x-amz-tagging': 'state=pending' });

const HOUR_MS = 3_600_000;

export type StorageOperation = 'upload' | 'object';

function storageSignature(ctx: SimContext, operation: StorageOperation, attachmentId: string, expires: number): string {
	const mac = createHmac('sha256', ctx.store.storageSecret).update(`${operation}\n${attachmentId}\n${expires}`).digest();
	return b64uEncode(mac);
}

/** `…/_storage/{operation}/{attachmentId}?expires=<unix seconds>&sig=<b64u HMAC>`, valid 300 s. */
export function presignedUrl(ctx: SimContext, operation: StorageOperation, attachmentId: string): string {
	const expires = ctx.clock.nowSeconds() + PRESIGNED_URL_SECONDS;
	return `${ctx.publicUrl}/_storage/${operation}/${attachmentId}?expires=${expires}&sig=${storageSignature(ctx, operation, attachmentId, expires)}`;
}

/** Whether a presigned URL's query is exactly ours, unaltered and not expired. */
export function presignedUrlIsValid(ctx: SimContext, operation: StorageOperation, attachmentId: string, query: URLSearchParams): boolean {
	const keys = [...query.keys()].sort();
	if (keys.length !== 2 || keys[0] !== 'expires' || keys[1] !== 'sig') return false;
	const expiresText = query.get('expires') ?? '';
	if (!/^[0-9]{1,12}$/.test(expiresText)) return false;
	const expires = Number(expiresText);
	const expected = Buffer.from(storageSignature(ctx, operation, attachmentId, expires));
	const received = Buffer.from(query.get('sig') ?? '');
	if (expected.length !== received.length || !timingSafeEqual(expected, received)) return false;
	return ctx.clock.nowSeconds() <= expires;
}

/**
 * Seconds until the company may create another upload, or null while it is under 1,000 within the
 * last hour (the caller answers `429 RATE_LIMITED` with `Retry-After`).
 */
export function uploadRetryAfterSeconds(ctx: SimContext, company: Company): number | null {
	const now = ctx.clock.nowMs();
	company.uploadTimesMs = company.uploadTimesMs.filter((time) => time > now - HOUR_MS && time <= now);
	if (company.uploadTimesMs.length < UPLOADS_PER_HOUR) return null;
	return Math.max(1, Math.ceil((company.uploadTimesMs[0] + HOUR_MS - now) / 1000));
}

/** The ciphertext size of an upload request (contract 4, 8). */
export function requireCiphertextSize(value: unknown): number {
	if (!isIntegerIn(value, MIN_ATTACHMENT_CIPHERTEXT, MAX_ATTACHMENT_CIPHERTEXT)) {
		throw new ContractError(
			'INVALID_REQUEST',
			`size must be an integer from ${MIN_ATTACHMENT_CIPHERTEXT} to ${MAX_ATTACHMENT_CIPHERTEXT} (ciphertext bytes)`
		);
	}
	return value;
}

/** A new attachment awaiting its bytes; the company's count toward the hourly limit. */
export function createAttachment(
	ctx: SimContext,
	company: Company,
	conversation: Conversation,
	size: number,
	createdBy: SenderType,
	attachmentId = newAttachmentId()
): Attachment {
	const now = ctx.clock.nowMs();
	const attachment: Attachment = {
		attachmentId,
		companyId: company.companyId,
		conversationId: conversation.conversationId,
		size,
		createdBy,
		createdAtMs: now,
		uploadedAtMs: null,
		usedByMessageId: null
	};
	if (createdBy === 'company') {
		company.uploadTimesMs.push(now);
		ctx.store.changed('companies', company.companyId);
	}
	ctx.store.addAttachment(attachment);
	return attachment;
}

/** The upload record of contract 2.7. */
export function uploadRecord(ctx: SimContext, attachment: Attachment) {
	return {
		attachmentId: attachment.attachmentId,
		uploadUrl: presignedUrl(ctx, 'upload', attachment.attachmentId),
		method: 'PUT',
		headers: { ...UPLOAD_HEADERS },
		expiresIn: PRESIGNED_URL_SECONDS
	};
}

/** The download record of contract 2.8; `409 ATTACHMENT_NOT_UPLOADED` before the bytes are there. */
export function downloadRecord(ctx: SimContext, attachment: Attachment) {
	if (attachment.uploadedAtMs === null) {
		throw new ContractError('ATTACHMENT_NOT_UPLOADED', `the bytes of ${attachment.attachmentId} were not uploaded`);
	}
	return { downloadUrl: presignedUrl(ctx, 'object', attachment.attachmentId), size: attachment.size, expiresIn: PRESIGNED_URL_SECONDS };
}

/** Keeps the uploaded ciphertext (the simulated object storage). */
export function storeObject(ctx: SimContext, attachment: Attachment, bytes: Uint8Array): void {
	ctx.store.objects.set(attachment.attachmentId, bytes);
	attachment.uploadedAtMs = ctx.clock.nowMs();
	ctx.store.changed('attachments', attachment.attachmentId);
}
