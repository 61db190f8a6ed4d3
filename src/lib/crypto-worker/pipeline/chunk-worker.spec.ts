import { beforeAll, describe, expect, it } from 'vitest';
import { attachmentCiphertextLength, ENCRYPTED_CHUNK_SIZE, encryptAttachment } from '../../crypto/attachment';
import { initCrypto } from '../../crypto/sodium';
import { attachmentPattern } from '../../conformance/runner';
import { ChunkWorkerState } from './chunk-worker';
import type { ChunkDirection, ChunkJob, JobChunk } from './protocol';

const attachmentId = 'att_chunkWorker001';
const size = 65_536 + 100;
const plaintext = attachmentPattern(size);
const fileKey = new Uint8Array(32).fill(7);
const nonceBase = new Uint8Array(24).fill(9);
let ciphertext: Uint8Array;

beforeAll(async () => {
	await initCrypto();
	ciphertext = encryptAttachment(plaintext, { attachmentId, fileKey, nonceBase }).ciphertext;
});

const open = (state: ChunkWorkerState, session = 1) =>
	state.handle({ kind: 'open', session, fileKey: fileKey.slice(), nonceBase, attachmentId });

/** The first chunk of the job that failed (null: every chunk was processed). */
const failedOf = (reply: ReturnType<ChunkWorkerState['handle']>) => (reply?.kind === 'job' ? reply.failedIndex : undefined);

/** A job of one chunk, `index`, whose bytes fill the start of `buffer`. */
const job = (buffer: ArrayBuffer, chunk: JobChunk, session = 1, direction: ChunkDirection = 'decrypt'): ChunkJob => ({
	kind: 'job',
	session,
	direction,
	chunks: [chunk],
	buffer
});

/** The job of decrypting chunk `index` (a whole one) from `buffer`. */
const decryptJob = (buffer: ArrayBuffer, session = 1, index = 0, last = false) =>
	job(buffer, { index, last, length: ENCRYPTED_CHUNK_SIZE }, session);

/** A job buffer as the pipeline sends it: each of `chunks` at the start of its 65,552-byte slot. */
function bufferOf(...chunks: Uint8Array[]): ArrayBuffer {
	const buffer = new ArrayBuffer(ENCRYPTED_CHUNK_SIZE * Math.max(chunks.length, 1));
	chunks.forEach((bytes, slot) => new Uint8Array(buffer, slot * ENCRYPTED_CHUNK_SIZE).set(bytes));
	return buffer;
}

describe('a chunk worker', () => {
	it('decrypts each chunk of a job in place in its slot with its own nonce and AD, and encrypts back to the same bytes', () => {
		const state = new ChunkWorkerState();
		expect(open(state)).toBeUndefined();
		const lastLength = attachmentCiphertextLength(size) - ENCRYPTED_CHUNK_SIZE;
		const chunks = [
			{ index: 0, last: false, length: ENCRYPTED_CHUNK_SIZE },
			{ index: 1, last: true, length: lastLength }
		];
		const both = bufferOf(ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE), ciphertext.subarray(ENCRYPTED_CHUNK_SIZE));
		const reply = state.handle({ kind: 'job', session: 1, direction: 'decrypt', chunks, buffer: both });
		expect(reply).toEqual({ kind: 'job', session: 1, chunks, failedIndex: null, buffer: both });
		expect(Buffer.compare(new Uint8Array(both, 0, 65_536), plaintext.subarray(0, 65_536))).toBe(0);
		expect(Buffer.compare(new Uint8Array(both, ENCRYPTED_CHUNK_SIZE, 100), plaintext.subarray(65_536))).toBe(0);

		const plain = bufferOf(plaintext.subarray(0, 65_536), plaintext.subarray(65_536));
		const encrypting = [
			{ index: 0, last: false, length: 65_536 },
			{ index: 1, last: true, length: 100 }
		];
		expect(failedOf(state.handle({ kind: 'job', session: 1, direction: 'encrypt', chunks: encrypting, buffer: plain }))).toBeNull();
		expect(Buffer.compare(new Uint8Array(plain, 0, ENCRYPTED_CHUNK_SIZE), ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE))).toBe(0);
		expect(Buffer.compare(new Uint8Array(plain, ENCRYPTED_CHUNK_SIZE, lastLength), ciphertext.subarray(ENCRYPTED_CHUNK_SIZE))).toBe(0);
	});

	it('refuses a chunk under another index, another last flag, or tampered, and leaves it as it was', () => {
		const state = new ChunkWorkerState();
		open(state);
		const chunk = ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE);
		for (const [index, last] of [
			[1, false],
			[0, true]
		] as const) {
			const buffer = bufferOf(chunk);
			expect(failedOf(state.handle(decryptJob(buffer, 1, index, last)))).toBe(index);
			expect(new Uint8Array(buffer).every((byte) => byte === 0)).toBe(true);
		}
		const tampered = bufferOf(chunk);
		new Uint8Array(tampered)[5] ^= 1;
		expect(failedOf(state.handle(decryptJob(tampered, 1, 0, false)))).toBe(0);
	});

	it('a job whose second chunk fails names it and comes back zeroed, the first chunk’s plaintext included', () => {
		const state = new ChunkWorkerState();
		open(state);
		const buffer = bufferOf(ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE), ciphertext.subarray(ENCRYPTED_CHUNK_SIZE));
		const lastLength = attachmentCiphertextLength(size) - ENCRYPTED_CHUNK_SIZE;
		const chunks = [
			{ index: 0, last: false, length: ENCRYPTED_CHUNK_SIZE },
			{ index: 1, last: false, length: lastLength }
		];
		expect(failedOf(state.handle({ kind: 'job', session: 1, direction: 'decrypt', chunks, buffer }))).toBe(1);
		expect(new Uint8Array(buffer).every((byte) => byte === 0)).toBe(true);
	});

	it('wipes the key it was sent, forgets a closed session, and counts the open ones', () => {
		const state = new ChunkWorkerState();
		const key = fileKey.slice();
		state.handle({ kind: 'open', session: 4, fileKey: key, nonceBase, attachmentId });
		expect(key.every((byte) => byte === 0)).toBe(true);
		open(state, 5);
		open(state, 5);
		expect(state.handle({ kind: 'status' })).toEqual({ kind: 'status', openSessions: 2 });
		state.handle({ kind: 'close', session: 4 });
		state.handle({ kind: 'close', session: 4 });
		expect(state.handle({ kind: 'status' })).toEqual({ kind: 'status', openSessions: 1 });
		const plain = bufferOf(plaintext.subarray(0, 65_536));
		expect(state.handle(job(plain, { index: 0, last: false, length: 65_536 }, 4, 'encrypt'))).toMatchObject({ session: 4, failedIndex: 0 });
		expect(new Uint8Array(plain).every((byte) => byte === 0)).toBe(true);
		const buffer = bufferOf(ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE));
		expect(failedOf(state.handle(decryptJob(buffer, 4, 0, false)))).toBe(0);
		const again = bufferOf(ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE));
		expect(failedOf(state.handle(decryptJob(again, 5, 0, false)))).toBeNull();
	});
});
