/**
 * What a chunk worker does, whatever runs it (a Web Worker in the browser, a `worker_threads` worker
 * in Node): it holds one `ChunkCipher` per open session and decrypts or encrypts jobs of consecutive
 * chunks in place (docs/crypto-worker.md, "Parallel chunks"). It never hashes: the digest is the pipeline's.
 */
import { ChunkCipher } from '../../crypto/attachment';
import { JOB_SLOT_BYTES, type ChunkJob, type FromChunkWorker, type ToChunkWorker } from './protocol';

export class ChunkWorkerState {
	private readonly sessions = new Map<number, ChunkCipher>();

	/** Handles one message; returns the reply to send (its buffer to transfer back), if any. */
	handle(message: ToChunkWorker): FromChunkWorker | undefined {
		switch (message.kind) {
			case 'open':
				this.sessions.get(message.session)?.release();
				this.sessions.set(message.session, new ChunkCipher(message.fileKey, message.nonceBase, message.attachmentId));
				message.fileKey.fill(0);
				return undefined;
			case 'close':
				this.sessions.get(message.session)?.release();
				this.sessions.delete(message.session);
				return undefined;
			case 'job':
				return {
					kind: 'job',
					session: message.session,
					chunks: message.chunks,
					failedIndex: this.process(message),
					buffer: message.buffer
				};
			case 'status':
				return { kind: 'status', openSessions: this.sessions.size };
		}
	}

	/** Processes the job's chunks in order; at the first that fails, wipes the buffer and returns its index. */
	private process({ session, direction, chunks, buffer }: ChunkJob): number | null {
		const cipher = this.sessions.get(session);
		for (const [slot, { index, last, length }] of chunks.entries()) {
			const chunk = new Uint8Array(buffer, slot * JOB_SLOT_BYTES, JOB_SLOT_BYTES);
			const done =
				cipher !== undefined &&
				(direction === 'encrypt'
					? (cipher.encryptInPlace(index, last, chunk, length), true)
					: cipher.decryptInPlace(index, last, chunk, length));
			if (!done) {
				new Uint8Array(buffer).fill(0);
				return index;
			}
		}
		return null;
	}
}
