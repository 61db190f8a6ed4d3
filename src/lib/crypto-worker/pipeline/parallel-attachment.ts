/**
 * Attachments through a pool of chunk workers (contract 6.5; docs/crypto-worker.md, "Parallel
 * chunks"). Every chunk has its own nonce and AD, so chunks are decrypted or encrypted in parallel;
 * the BLAKE2b digest of the plaintext, which is sequential, is kept here, in chunk order. Chunks in
 * flight are capped, so memory stays the file plus a few chunks. Decryption releases the plaintext only
 * after the length check, every chunk and the digest; any failure (a chunk that does not authenticate,
 * a wrong length or digest, a worker that dies) is `DECRYPT_FAILED` and wipes what was produced.
 */
import { CHUNK_SIZE, validateAttachmentMeta, type AttachmentMeta } from '../../crypto/attachment-meta';
import {
	attachmentChunkCount,
	attachmentCiphertextLength,
	attachmentKeysOf,
	ChunkAssembler,
	digestMatches,
	ENCRYPTED_CHUNK_SIZE,
	encryptedChunkLengths,
	IncrementalDigest,
	newAttachmentKeys,
	plainChunkLengths,
	type AttachmentEncryption,
	type AttachmentEncryptionInput,
	type AttachmentKeys
} from '../../crypto/attachment';
import { b64uEncode } from '../../crypto/encoding';
import { TAG_BYTES } from '../../crypto/rules';
import { ContractError, fail, type ContractCode } from '../../errors';
import { JOB_SLOT_BYTES, type ChunkDirection, type JobChunk } from './protocol';
import type { ChunkWorkerPool } from './pool';

/** Chunks sent to a chunk worker in one message: a message between threads costs about 0.1 ms, as much as decrypting 20 KiB. */
export const CHUNKS_PER_JOB = 4;
/** Jobs handed to each worker before the pipeline waits for one to come back. */
export const JOBS_IN_FLIGHT_PER_WORKER = 2;
const JOB_BYTES = CHUNKS_PER_JOB * JOB_SLOT_BYTES;

/** Consecutive chunks in one buffer, chunk k in slot k. */
interface Job {
	chunks: JobChunk[];
	buffer: ArrayBuffer;
}

/**
 * What both directions share: job buffers reused from a free list, whole jobs waiting for a worker, a
 * cap on jobs in flight, pushes run one after another, and one failure that ends it all.
 */
abstract class ChunkPipeline {
	protected readonly assembler: ChunkAssembler;
	protected readonly digest: IncrementalDigest;
	private readonly session: number;
	private readonly maxInFlight: number;
	private readonly free: ArrayBuffer[] = [];
	private readonly waiting: Job[] = [];
	/** Jobs handed out and not yet finished with (hashed, or written to the ciphertext). */
	private inFlight = 0;
	/** The job being assembled, with a view of its whole buffer. */
	private current: (Job & { bytes: Uint8Array }) | undefined;
	private pushes: Promise<void> = Promise.resolve();
	private wakers: Array<() => void> = [];
	protected failure: ContractError | undefined;
	private ended = false;

	constructor(
		private readonly pool: ChunkWorkerPool,
		private readonly direction: ChunkDirection,
		keys: AttachmentKeys & { attachmentId: string },
		size: number,
		/** The code of a failure of the pipeline itself (a worker that stops). */
		private readonly failureCode: ContractCode
	) {
		this.maxInFlight = pool.size * JOBS_IN_FLIGHT_PER_WORKER;
		this.assembler = new ChunkAssembler(
			attachmentChunkCount(size),
			direction === 'decrypt' ? encryptedChunkLengths(size) : plainChunkLengths(size),
			() => {
				const job = this.currentJob();
				return { bytes: job.bytes, offset: job.chunks.length * JOB_SLOT_BYTES };
			},
			(index, last, length) => this.chunkAssembled(index, last, length)
		);
		this.session = pool.open(keys, {
			jobDone: (chunks, failedIndex, buffer) => this.jobReturned(chunks, failedIndex, buffer),
			failed: (reason) => this.stop(reason)
		});
		this.digest = new IncrementalDigest();
	}

	/** The bytes of a whole chunk just assembled in `buffer` (the plaintext to hash, when encrypting). */
	protected abstract assembled(index: number, bytes: Uint8Array): void;
	/** A job back from its worker, its chunks processed in place. */
	protected abstract returned(job: Job): void;

	private currentJob(): Job & { bytes: Uint8Array } {
		if (!this.current) {
			const buffer = this.free.pop() ?? new ArrayBuffer(JOB_BYTES);
			this.current = { chunks: [], buffer, bytes: new Uint8Array(buffer) };
		}
		return this.current;
	}

	/** A whole chunk in the current job; the job goes out when it is full or holds the last chunk. */
	private chunkAssembled(index: number, last: boolean, length: number): void {
		const { chunks, buffer } = this.currentJob();
		this.assembled(index, new Uint8Array(buffer, chunks.length * JOB_SLOT_BYTES, length));
		chunks.push({ index, last, length });
		if (chunks.length < CHUNKS_PER_JOB && !last) return;
		this.current = undefined;
		this.waiting.push({ chunks, buffer });
		this.dispatch();
	}

	private dispatch(): void {
		while (!this.failure && this.waiting.length > 0 && this.inFlight < this.maxInFlight) {
			this.inFlight++;
			this.pool.dispatch(this.session, { direction: this.direction, ...this.waiting.shift()! });
		}
	}

	/** Jobs of a pipeline that ended never come here: `end()` closes the session, and the pool wipes them. */
	private jobReturned(chunks: JobChunk[], failedIndex: number | null, buffer: ArrayBuffer): void {
		if (failedIndex !== null) return this.stop(`chunk ${failedIndex} does not authenticate`);
		this.returned({ chunks, buffer });
	}

	/** A job is finished with: its buffer is reused (every buffer is wiped at the end) and the next waiting job may go. */
	protected release(buffer: ArrayBuffer): void {
		this.inFlight--;
		this.free.push(buffer);
		this.dispatch();
		this.wake();
	}

	private wake(): void {
		const wakers = this.wakers;
		this.wakers = [];
		for (const waker of wakers) waker();
	}

	/** Resolves once `condition` holds or the pipeline failed. */
	protected async until(condition: () => boolean): Promise<void> {
		while (!this.failure && !condition()) await new Promise<void>((resolve) => this.wakers.push(resolve));
		if (this.failure) throw this.failure;
	}

	/**
	 * Consumes the next piece, of any size. Pushes run in the order they were called; each returns
	 * once its chunks are in the workers' hands (or queued behind a few), which paces the reader.
	 */
	push(piece: Uint8Array): Promise<void> {
		const run = this.pushes.then(async () => {
			if (this.failure) throw this.failure;
			if (this.ended) this.finishedAlready();
			// Stryker disable next-line EqualityOperator: equivalent: one more step pushes an empty piece and waits on an empty queue
			for (let offset = 0; offset < Math.max(piece.length, 1); offset += CHUNK_SIZE) {
				if (!this.assembler.push(piece.subarray(offset, offset + CHUNK_SIZE))) this.overflow();
				await this.until(() => this.waiting.length === 0);
			}
		});
		this.pushes = run.catch(() => undefined);
		return run;
	}

	/** Waits for every push, checks that the whole input came, then for every chunk to come back. */
	protected async drain(): Promise<void> {
		await this.pushes;
		if (this.failure) throw this.failure;
		if (this.ended) this.finishedAlready();
		this.assembler.completeIfWhole();
		if (!this.assembler.done) this.shortInput();
		// jobs wait only while the cap is reached, so none wait once none are out
		await this.until(() => this.inFlight === 0);
	}

	private finishedAlready(): never {
		return fail(this.direction === 'decrypt' ? 'DECRYPT_FAILED' : 'INVALID_INPUT', 'the attachment pipeline has finished');
	}

	protected abstract overflow(): never;
	protected abstract shortInput(): never;

	/** Ends the pipeline with a failure (kept: later calls throw the first one) and wipes everything. */
	protected stop(reason: string, code: ContractCode = this.failureCode): void {
		if (this.ended) return;
		this.failure = new ContractError(code, `attachment: ${reason}`);
		this.end();
		this.wipe();
		this.wake();
	}

	/** Closes the session in every worker, wipes the chunk buffers and frees the digest state. */
	protected end(): void {
		this.ended = true;
		this.pool.close(this.session);
		for (const buffer of [...this.free, ...this.waiting.map((job) => job.buffer), ...(this.current ? [this.current.buffer] : [])]) {
			new Uint8Array(buffer).fill(0);
		}
		this.free.length = 0;
		this.waiting.length = 0;
		this.current = undefined;
		this.digest.release();
	}

	/** Wipes what the direction produced, after a failure. */
	protected abstract wipe(): void;

	/** Stops (the download broke off, the page gave up, the key store was locked), wipes, and returns the error. */
	abort(reason = 'aborted'): ContractError {
		this.stop(reason);
		return this.failure!;
	}
}

/** Decryption through the pool, with the same checks and errors as the core's `AttachmentDecryptor`. */
export class ParallelAttachmentDecryptor extends ChunkPipeline {
	readonly meta: AttachmentMeta;
	readonly ciphertextLength: number;
	private readonly plaintext: Uint8Array;
	/** Jobs back before their turn to be hashed, by their first chunk's index. */
	private readonly returnedJobs = new Map<number, Job>();
	private nextToHash = 0;

	constructor(pool: ChunkWorkerPool, meta: AttachmentMeta | unknown) {
		const valid = validateAttachmentMeta(meta);
		const keys = attachmentKeysOf(valid);
		try {
			super(pool, 'decrypt', { ...keys, attachmentId: valid.attachmentId }, valid.size, 'DECRYPT_FAILED');
		} finally {
			keys.fileKey.fill(0);
		}
		this.meta = valid;
		this.ciphertextLength = attachmentCiphertextLength(valid.size);
		this.plaintext = new Uint8Array(valid.size);
	}

	/** Ciphertext bytes consumed so far, for progress. */
	get bytesReceived(): number {
		return this.assembler.consumed;
	}

	protected assembled(): void {
		// Ciphertext is hashed nowhere: the digest is of the plaintext, in order, as chunks come back.
	}

	/** Jobs come back in any order; each chunk is hashed and copied out in its turn. */
	protected returned(job: Job): void {
		this.returnedJobs.set(job.chunks[0].index, job);
		for (let next = this.returnedJobs.get(this.nextToHash); next; next = this.returnedJobs.get(this.nextToHash)) {
			this.returnedJobs.delete(this.nextToHash);
			for (const [slot, { index, length }] of next.chunks.entries()) {
				const plain = new Uint8Array(next.buffer, slot * JOB_SLOT_BYTES, length - TAG_BYTES);
				this.digest.update(plain);
				this.plaintext.set(plain, index * CHUNK_SIZE);
			}
			this.nextToHash += next.chunks.length;
			this.release(next.buffer);
		}
	}

	protected overflow(): never {
		this.stop('the ciphertext is longer than the meta size allows');
		throw this.failure!;
	}

	protected shortInput(): never {
		this.stop(`the ciphertext is ${this.bytesReceived} bytes, expected ${this.ciphertextLength}`);
		throw this.failure!;
	}

	/** Checks the length, every chunk and the digest, then releases the plaintext. */
	async finish(): Promise<Uint8Array> {
		await this.drain();
		const digest = this.digest.final();
		if (!digestMatches(digest, this.meta)) {
			this.stop('the plaintext digest differs from the meta');
			throw this.failure!;
		}
		this.end();
		return this.plaintext;
	}

	protected wipe(): void {
		this.plaintext.fill(0);
		for (const { buffer } of this.returnedJobs.values()) new Uint8Array(buffer).fill(0);
		this.returnedJobs.clear();
	}
}

/** Encryption through the pool, with the same checks and result as the core's `AttachmentEncryptor`. */
export class ParallelAttachmentEncryptor extends ChunkPipeline {
	readonly size: number;
	readonly ciphertext: Uint8Array;
	private readonly keys: AttachmentKeys;

	constructor(pool: ChunkWorkerPool, input: AttachmentEncryptionInput) {
		const keys = newAttachmentKeys(input);
		const ciphertextLength = attachmentCiphertextLength(input.size);
		super(pool, 'encrypt', { ...keys, attachmentId: input.attachmentId }, input.size, 'WORKER_STOPPED');
		this.keys = keys;
		this.size = input.size;
		this.ciphertext = new Uint8Array(ciphertextLength);
	}

	/** Plaintext bytes consumed so far, for progress. */
	get bytesConsumed(): number {
		return this.assembler.consumed;
	}

	/** The plaintext is hashed as it is assembled, which is in order. */
	protected assembled(_index: number, bytes: Uint8Array): void {
		this.digest.update(bytes);
	}

	protected returned({ chunks, buffer }: Job): void {
		for (const [slot, { index, length }] of chunks.entries()) {
			this.ciphertext.set(new Uint8Array(buffer, slot * JOB_SLOT_BYTES, length + TAG_BYTES), index * ENCRYPTED_CHUNK_SIZE);
		}
		this.release(buffer);
	}

	protected overflow(): never {
		this.stop(`the file is longer than its declared size ${this.size}`, 'INVALID_INPUT');
		throw this.failure!;
	}

	protected shortInput(): never {
		this.stop(`the file is shorter than its declared size ${this.size}`, 'INVALID_INPUT');
		throw this.failure!;
	}

	async finish(): Promise<AttachmentEncryption> {
		await this.drain();
		const digest = b64uEncode(this.digest.final());
		this.end();
		return { ciphertext: this.ciphertext, digest, ...this.keys };
	}

	protected wipe(): void {
		this.ciphertext.fill(0);
		this.keys.fileKey.fill(0);
	}
}
