/**
 * The attachments part of the crypto worker's API (contract 4.3, 4.4, 6.5; docs/crypto-worker.md
 * "Parallel chunks"): files encrypted for upload and downloads decrypted as they arrive, by the chunk
 * workers. The page holds an `AttachmentInfo` with a sealed `ref`; the file key F never leaves the workers.
 */
import { transfer } from 'comlink';
import type { Envelope } from '../../crypto/message';
import { fail } from '../../errors';
import { metaOf } from '../attachment-refs';
import { encryptFile } from '../attachment-upload';
import { encryptReply } from '../messages';
import type { AttachmentDetails, DecryptedAttachment, EncryptedAttachment, ProgressCallback } from '../types';
import type { WorkerState } from './state';

/** The most chunk workers a page may ask for. */
export const MAX_CHUNK_WORKERS = 16;

export interface AttachmentsApi {
	/** How many chunk workers attachments use, instead of one per core beside this worker; only before the first attachment. */
	useChunkWorkers(count: number): Promise<void>;
	/** Encrypts a file for upload (contract 4.3 step 2); the ciphertext comes back transferred, for the PUT to `uploadUrl`. */
	encryptAttachment(file: Blob, details: AttachmentDetails, onProgress?: ProgressCallback): Promise<EncryptedAttachment>;
	/** The attachment message (contract 4.3 step 4): the meta behind `ref`, F included, encrypted as a reply. */
	encryptAttachmentMessage(conversationId: string, ref: string, keyVersion: number): Promise<Envelope>;
	/**
	 * Streamed decryption (contract 4.4 step 4, 6.5), in steps the page's `decryptAttachmentStream` takes:
	 * begin with the meta (its `ref`), push the download's pieces in order as transferred buffers (each
	 * comes back for reuse), then finish to get the checked Blob, or abort.
	 */
	beginAttachmentDecryption(meta: unknown, ciphertextSize?: number): Promise<{ id: string; ciphertextLength: number }>;
	pushAttachmentPiece(id: string, piece: Uint8Array): Promise<ArrayBuffer>;
	finishAttachmentDecryption(id: string): Promise<DecryptedAttachment>;
	abortAttachmentDecryption(id: string, reason?: string): Promise<void>;
}

export function createAttachmentsApi(state: WorkerState): AttachmentsApi {
	const { attachmentRefs, downloads } = state;
	return {
		useChunkWorkers: (count) =>
			state.run(() => {
				if (!Number.isInteger(count) || count < 1 || count > MAX_CHUNK_WORKERS)
					fail('INVALID_INPUT', `chunkWorkers must be an integer from 1 to ${MAX_CHUNK_WORKERS}`);
				state.useChunkWorkerCount(count);
			}),
		encryptAttachment: (file, details, onProgress) =>
			state.run(async () => {
				const { ciphertext, meta } = await encryptFile(state.chunkWorkers(), file, details, onProgress);
				return transfer({ ciphertext, meta: attachmentRefs.seal(meta) }, [ciphertext]);
			}),
		encryptAttachmentMessage: (conversationId, ref, keyVersion) =>
			state.run(() => encryptReply(state.session, conversationId, JSON.stringify(attachmentRefs.open(ref)), keyVersion)),
		beginAttachmentDecryption: (meta, ciphertextSize) => state.run(() => downloads.begin(metaOf(attachmentRefs, meta), ciphertextSize)),
		pushAttachmentPiece: (id, piece) => state.run(() => downloads.push(id, piece)),
		finishAttachmentDecryption: (id) => state.run(() => downloads.finish(id)),
		abortAttachmentDecryption: (id, reason) => state.run(() => downloads.abort(id, reason))
	};
}
