/**
 * What a chunk worker does, whatever runs it (a Web Worker in the browser, a `worker_threads` worker
 * in Node): it holds one `ChunkCipher` per open session and decrypts or encrypts chunks in place
 * (docs/crypto-worker.md, "Parallel chunks"). It never hashes: the digest is the pipeline's.
 */
import { ChunkCipher } from '../attachment';
import type { ChunkJob, FromChunkWorker, ToChunkWorker } from './protocol';

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
			case 'chunk':
				return { kind: 'chunk', session: message.session, index: message.index, ok: this.process(message), buffer: message.buffer };
			case 'status':
				return { kind: 'status', openSessions: this.sessions.size };
		}
	}

	private process({ session, direction, index, last, length, buffer }: ChunkJob): boolean {
		const cipher = this.sessions.get(session);
		if (!cipher) return false;
		const chunk = new Uint8Array(buffer);
		if (direction === 'encrypt') {
			cipher.encryptInPlace(index, last, chunk, length);
			return true;
		}
		return cipher.decryptInPlace(index, last, chunk, length);
	}
}
