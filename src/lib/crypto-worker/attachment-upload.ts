/**
 * Attachment upload in the worker (contract 4.3, 6.5): a File or Blob read chunk by chunk, hashed
 * here in order and encrypted by the chunk workers in parallel (docs/crypto-worker.md, "Parallel
 * chunks"), with progress, into a ciphertext for the PUT and the validated meta.
 */
import { buildAttachmentMeta, type AttachmentEncryption } from '../crypto/attachment';
import { ParallelAttachmentEncryptor } from './pipeline/parallel-attachment';
import type { ChunkWorkerPool } from './pipeline/pool';
import { MAX_ATTACHMENT_SIZE, type AttachmentMeta } from '../crypto/attachment-meta';
import { b64uEncode } from '../crypto/encoding';
import { DIGEST_BYTES, KEY_BYTES, NONCE_BYTES } from '../crypto/rules';
import { ContractError, fail } from '../errors';
import { ProgressReporter } from './progress';
import type { AttachmentDetails, ProgressCallback } from './types';

const FALLBACK_MIME = 'application/octet-stream';
const PROGRESS_SLICE = 256 * 1024;

/** Stands in for the keys while the meta is checked before any byte is encrypted. */
function placeholderEncryption(): AttachmentEncryption {
	return {
		ciphertext: new Uint8Array(0),
		fileKey: new Uint8Array(KEY_BYTES),
		nonceBase: new Uint8Array(NONCE_BYTES),
		digest: b64uEncode(new Uint8Array(DIGEST_BYTES))
	};
}

/** A Blob's type without parameters (`text/plain;charset=utf-8` → `text/plain`) if the meta accepts it, else the fallback. */
function mimeOf(file: Blob): string {
	const mime = file.type.split(';')[0].trim().toLowerCase();
	try {
		buildAttachmentMeta({ attachmentId: 'att_mimecheck', name: 'file', mime, size: 0, encryption: placeholderEncryption() });
		return mime;
	} catch {
		return FALLBACK_MIME;
	}
}

function metaFields(file: Blob, details: AttachmentDetails) {
	if (typeof details !== 'object' || details === null) fail('INVALID_INPUT', 'attachment details must be an object');
	return {
		attachmentId: details.attachmentId,
		name: (details.name ?? (file instanceof File ? file.name : undefined)) as string,
		mime: details.mime ?? mimeOf(file),
		size: file.size,
		caption: details.caption,
		width: details.width,
		height: details.height
	};
}

/**
 * Encrypts a file for upload with a fresh file key and nonce base. The meta is validated first,
 * so a bad name or size fails before any work.
 */
export async function encryptFile(
	chunkWorkers: ChunkWorkerPool,
	file: Blob,
	details: AttachmentDetails,
	onProgress?: ProgressCallback
): Promise<{ ciphertext: ArrayBuffer; meta: AttachmentMeta }> {
	if (!(file instanceof Blob)) fail('INVALID_INPUT', 'file must be a File or a Blob');
	if (file.size > MAX_ATTACHMENT_SIZE)
		fail('INVALID_INPUT', `an attachment is at most ${MAX_ATTACHMENT_SIZE} bytes, this file has ${file.size}`);
	const fields = metaFields(file, details);
	buildAttachmentMeta({ ...fields, encryption: placeholderEncryption() });

	const encryptor = new ParallelAttachmentEncryptor(chunkWorkers, { attachmentId: fields.attachmentId, size: fields.size });
	const progress = new ProgressReporter(fields.size, onProgress);
	const reader = file.stream().getReader();
	let encryption: AttachmentEncryption;
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			// A Blob in memory may arrive as one piece; slices keep the progress moving.
			for (let offset = 0; offset < value.length; offset += PROGRESS_SLICE) {
				await encryptor.push(value.subarray(offset, offset + PROGRESS_SLICE));
				progress.update(encryptor.bytesConsumed);
			}
		}
		encryption = await encryptor.finish();
	} catch (error) {
		reader.cancel().catch(() => undefined);
		encryptor.abort('the file could not be read');
		progress.release();
		if (error instanceof ContractError) throw error;
		return fail('INVALID_INPUT', `the file could not be read: ${(error as Error)?.message ?? String(error)}`);
	}
	await progress.finish();
	const meta = buildAttachmentMeta({ ...fields, encryption });
	encryption.fileKey.fill(0);
	return { ciphertext: encryption.ciphertext.buffer as ArrayBuffer, meta };
}
