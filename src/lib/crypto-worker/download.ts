/**
 * A streamed attachment download on the page's side (docs/crypto-worker.md "How bytes cross the
 * boundary"): the page only reads the `fetch` body; its pieces move to the worker as transferred buffers,
 * through the worker's decryption steps. The Blob comes back only when the length and digest check; any
 * failure, the network's included, is `DECRYPT_FAILED` and leaves no Blob.
 */
import { transfer, type Remote } from 'comlink';
import { ContractError } from '../errors';
import type { AttachmentsApi } from './api/attachments';
import { ProgressReporter } from './progress';
import { pumpPieces } from './stream-pump';
import type { DecryptedAttachment, ProgressCallback } from './types';

/** The worker's steps of a streamed decryption, which only this module takes. */
export type DecryptionStep =
	'beginAttachmentDecryption' | 'pushAttachmentPiece' | 'finishAttachmentDecryption' | 'abortAttachmentDecryption';

/** The body of a download; an HTTP error is `DECRYPT_FAILED` carrying the status. */
function bodyOf(source: Response | ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
	if (!(source instanceof Response)) return source;
	if (!source.ok || !source.body) {
		void source.body?.cancel().catch(() => undefined);
		throw new ContractError('DECRYPT_FAILED', `the attachment download failed with HTTP ${source.status}`, source.status);
	}
	return source.body;
}

/**
 * Decrypts `source` (a `fetch` Response or its body) against `meta` in the worker behind `steps`; `call`
 * runs each step as the client runs every call (after the account is selected, failing when the worker stops).
 */
export async function decryptDownload(
	steps: Remote<Pick<AttachmentsApi, DecryptionStep>>,
	call: <T>(operation: () => Promise<T>) => Promise<T>,
	source: Response | ReadableStream<Uint8Array>,
	meta: unknown,
	options: { ciphertextSize?: number; onProgress?: ProgressCallback } = {}
): Promise<DecryptedAttachment> {
	const stream = bodyOf(source);
	let decryption: { id: string; ciphertextLength: number };
	try {
		decryption = await call(() => steps.beginAttachmentDecryption(meta, options.ciphertextSize));
	} catch (error) {
		await stream.cancel().catch(() => undefined);
		throw error;
	}
	const progress = new ProgressReporter(decryption.ciphertextLength, options.onProgress);
	let received = 0;
	try {
		await pumpPieces(
			stream,
			(piece) => call(() => steps.pushAttachmentPiece(decryption.id, transfer(piece, [piece.buffer]))),
			(bytes) => progress.update((received += bytes))
		);
	} catch (error) {
		const reason = error instanceof ContractError ? error.message : `the download broke off: ${(error as Error)?.message ?? String(error)}`;
		await steps.abortAttachmentDecryption(decryption.id, reason).catch(() => undefined);
		throw error instanceof ContractError ? error : new ContractError('DECRYPT_FAILED', `attachment: ${reason}`);
	}
	const result = await call(() => steps.finishAttachmentDecryption(decryption.id));
	await progress.finish();
	return result;
}
