/**
 * Messages between an attachment pipeline and its chunk workers (docs/crypto-worker.md, "Parallel
 * chunks"). They pass only between our own workers: F reaches a chunk worker in `open` and is wiped
 * there at `close`; chunk buffers are transferred both ways, never copied.
 */

export type ChunkDirection = 'decrypt' | 'encrypt';

/** Gives a chunk worker the keys of one attachment; `fileKey` is a copy the worker owns. */
export interface OpenSession {
	kind: 'open';
	session: number;
	fileKey: Uint8Array;
	nonceBase: Uint8Array;
	attachmentId: string;
}

/**
 * One chunk to process in place: `length` bytes at the start of `buffer` (65,552 bytes long), the
 * ciphertext of chunk `index` to decrypt or its plaintext to encrypt.
 */
export interface ChunkJob {
	kind: 'chunk';
	session: number;
	direction: ChunkDirection;
	index: number;
	last: boolean;
	length: number;
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

/** A processed chunk: `ok` false when it does not authenticate (or the session is unknown). */
export interface ChunkDone {
	kind: 'chunk';
	session: number;
	index: number;
	ok: boolean;
	buffer: ArrayBuffer;
}

export interface WorkerStatus {
	kind: 'status';
	openSessions: number;
}

export type FromChunkWorker = ChunkDone | WorkerStatus;
