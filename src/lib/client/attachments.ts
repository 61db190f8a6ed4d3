/**
 * Attachments in the browser (contract 2.6–2.8, 4.3, 4.4). Sending: create the upload
 * through the proxy, encrypt in the worker with progress, PUT the ciphertext to `uploadUrl` with exactly
 * the returned method and headers and no credentials. Receiving: the download record, `fetch`, and the
 * body streamed into the worker, which releases a Blob only after the length and digest checks.
 */
import { attachmentCiphertextLength } from '../crypto/attachment';
import { MAX_ATTACHMENT_SIZE, MAX_NAME_UTF16 } from '../crypto/attachment-meta';
import type { AttachmentInfo } from '../crypto-worker/types';
import { ContractError } from '../errors';
import type { CryptoWorkerClient } from '../crypto-worker/client';
import { v1, type UploadRecord } from '../wire/v1';
import { newIdempotencyKey } from './http';
import { v1Call } from './proxy';
import { isThumbnailable, viewerBlobType } from './viewer';

export type TransferPhase = 'preparing' | 'encrypting' | 'uploading' | 'downloading';

export interface TransferProgress {
	phase: TransferPhase;
	done: number;
	total: number;
}

const MIME_RULE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/;

/** A clear refusal before anything is uploaded: the file is larger than contract 2.6 allows. */
export function checkFileSize(file: Blob): void {
	if (file.size > MAX_ATTACHMENT_SIZE) {
		throw new ContractError(
			'INVALID_INPUT',
			`Files can be at most 25 MiB (${MAX_ATTACHMENT_SIZE.toLocaleString('en-US')} bytes); this one has ${file.size.toLocaleString('en-US')} bytes.`
		);
	}
}

/** The meta's `mime` (contract 2.6): the browser's type when it is a valid lowercase type, else octet-stream. */
export function attachmentMime(file: Blob): string {
	const type = file.type.split(';')[0].trim().toLowerCase();
	return MIME_RULE.test(type) ? type : 'application/octet-stream';
}

/** The meta's `name`: no control characters, `/` or `\`, at most 255 UTF-16 code units, never empty. */
export function attachmentName(name: string): string {
	// eslint-disable-next-line no-control-regex -- contract 2.6 forbids exactly these characters
	let cleaned = name.replace(/[\u0000-\u001f/\\]/g, '_').trim();
	if (cleaned === '') cleaned = 'attachment';
	if (cleaned.length <= MAX_NAME_UTF16) return cleaned;
	const dot = cleaned.lastIndexOf('.');
	const extension = dot > 0 && cleaned.length - dot <= 16 ? cleaned.slice(dot) : '';
	return cleaned.slice(0, MAX_NAME_UTF16 - extension.length) + extension;
}

/** Width and height of a raster image (contract 2.6, optional), or nothing when it cannot be decoded. */
export async function imageDimensions(file: Blob, mime: string): Promise<{ width: number; height: number } | null> {
	if (!isThumbnailable(mime) || typeof createImageBitmap !== 'function') return null;
	try {
		const bitmap = await createImageBitmap(file);
		const size = { width: bitmap.width, height: bitmap.height };
		bitmap.close();
		return size.width >= 1 && size.height >= 1 && size.width <= 20_000 && size.height <= 20_000 ? size : null;
	} catch {
		return null;
	}
}

/** PUTs the ciphertext exactly as the upload record says (contract 2.7), reporting upload progress. */
export function putCiphertext(
	record: UploadRecord,
	ciphertext: ArrayBuffer,
	onProgress?: (done: number, total: number) => void
): Promise<void> {
	return new Promise((resolve, reject) => {
		const request = new XMLHttpRequest();
		request.open(record.method, record.uploadUrl);
		request.withCredentials = false;
		for (const [name, value] of Object.entries(record.headers)) request.setRequestHeader(name, value);
		request.upload.onprogress = (event) => onProgress?.(event.loaded, event.total || ciphertext.byteLength);
		request.onload = () => {
			if (request.status >= 200 && request.status < 300) resolve();
			else reject(new ContractError('ATTACHMENT_NOT_UPLOADED', `The storage refused the upload (HTTP ${request.status}).`, request.status));
		};
		request.onerror = () => reject(new TypeError('the storage could not be reached'));
		request.onabort = () => reject(new TypeError('the upload was cancelled'));
		request.send(new Blob([ciphertext], { type: record.headers['content-type'] ?? 'application/octet-stream' }));
	});
}

export interface UploadedAttachment {
	attachmentId: string;
	/** The validated meta to send as the encrypted text of the attachment message. */
	meta: AttachmentInfo;
}

/**
 * Contract 4.3 steps 1–3. Each call makes a new upload (a fresh idempotency key): an upload URL lives
 * 300 s and accepts one PUT, so a retry after a failure starts over rather than replaying a stale one.
 */
export async function uploadAttachment(
	crypto: Pick<CryptoWorkerClient, 'encryptAttachment'>,
	conversationId: string,
	file: Blob & { name?: string },
	options: { caption?: string; onProgress?: (progress: TransferProgress) => void } = {}
): Promise<UploadedAttachment> {
	checkFileSize(file);
	const report = options.onProgress ?? (() => undefined);
	report({ phase: 'preparing', done: 0, total: file.size });
	const mime = attachmentMime(file);
	const dimensions = await imageDimensions(file, mime);
	const record = await v1Call(v1.createAttachmentUpload(conversationId, attachmentCiphertextLength(file.size)), {
		idempotencyKey: newIdempotencyKey('upload')
	});
	const encrypted = await crypto.encryptAttachment(
		file,
		{
			attachmentId: record.attachmentId,
			name: attachmentName(file.name ?? 'attachment'),
			mime,
			...(options.caption ? { caption: options.caption } : {}),
			...(dimensions ?? {})
		},
		{ onProgress: (progress) => report({ phase: 'encrypting', done: progress.done, total: progress.total }) }
	);
	await putCiphertext(record, encrypted.ciphertext, (done, total) => report({ phase: 'uploading', done, total }));
	return { attachmentId: record.attachmentId, meta: encrypted.meta };
}

/**
 * Contract 4.4 step 4: the download record through the proxy, then the bytes streamed into the worker.
 * The Blob comes back typed for safe use: allowlisted types keep theirs, everything else becomes
 * `application/octet-stream`, so even a mistaken navigation to it would only download it.
 */
export async function downloadAttachment(
	crypto: CryptoWorkerClient,
	conversationId: string,
	meta: AttachmentInfo,
	onProgress?: (progress: TransferProgress) => void
): Promise<Blob> {
	const record = await v1Call(v1.getAttachmentDownload(conversationId, meta.attachmentId));
	const response = await fetch(record.downloadUrl, { credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
	const decrypted = await crypto.decryptAttachmentStream(response, meta, {
		ciphertextSize: record.size,
		onProgress: (progress) => onProgress?.({ phase: 'downloading', done: progress.done, total: progress.total })
	});
	return new Blob([decrypted.blob], { type: viewerBlobType(meta.mime) });
}
