/**
 * Messages between an attachment pipeline and its chunk workers (docs/crypto-worker.md, "Parallel
 * chunks"). They pass only between our own workers: F reaches a chunk worker in `open` and is wiped
 * there at `close`; chunk buffers are transferred both ways, never copied.
 */
import { ENCRYPTED_CHUNK_SIZE } from '../../crypto/attachment';

export type ChunkDirection = 'decrypt' | 'encrypt';

/** Gives a chunk worker the keys of one attachment; `fileKey` is a copy the worker owns. */
export interface OpenSession {
	kind: 'open';
	session: number;
	fileKey: Uint8Array;
	nonceBase: Uint8Array;
	attachmentId: string;
}

/** One chunk of a job: its index in the file, whether it is the file's last, and its length. */
export interface JobChunk {
	index: number;
	last: boolean;
	/** Bytes of ciphertext to decrypt, or of plaintext to encrypt. */
	length: number;
}

/** Each chunk of a job has a slot of 65,552 bytes in its buffer: room for a plaintext chunk and its tag. */
export const JOB_SLOT_BYTES = ENCRYPTED_CHUNK_SIZE;

/**
 * Consecutive chunks to process in place, several per message (a message between threads costs about
 * 0.1 ms, as much as decrypting 20 KiB): chunk k of `chunks` is the first `length` bytes of slot k of `buffer`.
 */
export interface ChunkJob {
	kind: 'job';
	session: number;
	direction: ChunkDirection;
	chunks: JobChunk[];
	buffer: ArrayBuffer;
}

/** Wipes and forgets a session's key. */
export interface CloseSession {
	kind: 'close';
	session: number;
}

/** Asks how many sessions (keys) the worker still holds. */
export interface StatusRequest {
	kind: 'status';
}

export type ToChunkWorker = OpenSession | ChunkJob | CloseSession | StatusRequest;

/**
 * A processed job, its chunks in place in `buffer`; `failedIndex` is the first chunk that did not
 * authenticate (or every chunk's, when the session is unknown), and then the whole buffer comes back zeroed.
 */
export interface JobDone {
	kind: 'job';
	session: number;
	chunks: JobChunk[];
	failedIndex: number | null;
	buffer: ArrayBuffer;
}

export interface WorkerStatus {
	kind: 'status';
	openSessions: number;
}

export type FromChunkWorker = JobDone | WorkerStatus;
