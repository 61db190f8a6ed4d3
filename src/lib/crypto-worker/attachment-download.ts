/**
 * Attachment download in the worker (contract 4.4, 6.5): a decryption fed piece by piece as the
 * page reads the `fetch` body, each piece a transferred ArrayBuffer handed back for reuse, so the
 * bytes are never copied between threads. Chunks are decrypted by the chunk workers in parallel and
 * hashed here in order (docs/crypto-worker.md, "Parallel chunks"). The Blob exists only after the
 * length, every chunk and the digest check; any failure is `DECRYPT_FAILED` and wipes what was decrypted.
 */
import { transfer } from 'comlink';
import { fail } from '../errors';
import type { ChunkWorkerPool } from './pipeline/pool';
import { ParallelAttachmentDecryptor } from './pipeline/parallel-attachment';
import type { DecryptedAttachment } from './types';

/** Each running decryption holds up to 25 MiB of plaintext; more than this at once is a leak in the page. */
export const MAX_RUNNING_DECRYPTIONS = 8;

export class AttachmentDownloads {
	private readonly running = new Map<string, ParallelAttachmentDecryptor>();
	private counter = 0;

	constructor(private readonly chunkWorkers: () => ChunkWorkerPool) {}

	/**
	 * Starts a decryption against the meta (validated here). `ciphertextSize`, when known (the
	 * event's or the download record's size), must match the meta before any byte is read.
	 */
	begin(meta: unknown, ciphertextSize?: number): { id: string; ciphertextLength: number } {
		if (this.running.size >= MAX_RUNNING_DECRYPTIONS)
			fail('INVALID_INPUT', `at most ${MAX_RUNNING_DECRYPTIONS} attachment decryptions may run at once`);
		const decryptor = new ParallelAttachmentDecryptor(this.chunkWorkers(), meta);
		if (ciphertextSize !== undefined && ciphertextSize !== decryptor.ciphertextLength) {
			throw decryptor.abort(`the ciphertext is announced as ${ciphertextSize} bytes, expected ${decryptor.ciphertextLength}`);
		}
		const id = `dec_${++this.counter}`;
		this.running.set(id, decryptor);
		return { id, ciphertextLength: decryptor.ciphertextLength };
	}

	private decryptor(id: string): ParallelAttachmentDecryptor {
		const decryptor = this.running.get(id);
		if (!decryptor) fail('DECRYPT_FAILED', `attachment decryption ${String(id)} is not running`);
		return decryptor;
	}

	/** Takes the piece's bytes; returns its buffer (transferred back) for the page to refill. */
	async push(id: string, piece: Uint8Array): Promise<ArrayBuffer> {
		const decryptor = this.decryptor(id);
		try {
			if (!(piece instanceof Uint8Array)) throw decryptor.abort('a piece must be bytes');
			await decryptor.push(piece);
		} catch (error) {
			this.running.delete(id);
			throw error;
		}
		const buffer = piece.buffer as ArrayBuffer;
		return transfer(buffer, [buffer]);
	}

	/** Checks length, chunks and digest, then releases the plaintext as a Blob typed with the meta's mime. */
	async finish(id: string): Promise<DecryptedAttachment> {
		const decryptor = this.decryptor(id);
		this.running.delete(id);
		const plaintext = await decryptor.finish();
		// The Blob constructor copies the bytes, so the worker's copy is wiped at once.
		const blob = new Blob([plaintext as Uint8Array<ArrayBuffer>], { type: decryptor.meta.mime });
		plaintext.fill(0);
		return { blob, size: blob.size };
	}

	/** Stops every running decryption and wipes what each had decrypted (the worker is being locked). */
	abortAll(reason = 'the key store was locked'): void {
		for (const id of [...this.running.keys()]) this.abort(id, reason);
	}

	/** Stops a decryption (the download broke off, or the page gave up) and wipes it. */
	abort(id: string, reason = 'aborted'): void {
		this.running.get(id)?.abort(reason);
		this.running.delete(id);
	}
}
