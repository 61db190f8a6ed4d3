import { beforeAll, describe, expect, it } from 'vitest';
import { attachmentCiphertextLength, ENCRYPTED_CHUNK_SIZE, encryptAttachment } from '../attachment';
import { initCrypto } from '../sodium';
import { attachmentPattern } from '../vectors/runner';
import { ChunkWorkerState } from './chunk-worker';

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

/** Whether the chunk job was processed. */
const okOf = (reply: ReturnType<ChunkWorkerState['handle']>) => (reply?.kind === 'chunk' ? reply.ok : undefined);

/** The job of decrypting chunk `index` (a whole one) from `buffer`. */
const decryptJob = (buffer: ArrayBuffer, session = 1, index = 0, last = false) =>
	({ kind: 'chunk', session, direction: 'decrypt', index, last, length: ENCRYPTED_CHUNK_SIZE, buffer }) as const;

/** A chunk buffer as the pipeline sends it: `bytes` at the start of 65,552 bytes. */
function bufferOf(bytes: Uint8Array): ArrayBuffer {
	const buffer = new ArrayBuffer(ENCRYPTED_CHUNK_SIZE);
	new Uint8Array(buffer).set(bytes);
	return buffer;
}

describe('a chunk worker', () => {
	it('decrypts each chunk in place with its own nonce and AD, and encrypts back to the same bytes', () => {
		const state = new ChunkWorkerState();
		expect(open(state)).toBeUndefined();
		const first = bufferOf(ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE));
		const reply = state.handle(decryptJob(first, 1, 0, false));
		expect(reply).toEqual({ kind: 'chunk', session: 1, index: 0, ok: true, buffer: first });
		expect(Buffer.compare(new Uint8Array(first, 0, 65_536), plaintext.subarray(0, 65_536))).toBe(0);

		const lastLength = attachmentCiphertextLength(size) - ENCRYPTED_CHUNK_SIZE;
		const last = bufferOf(plaintext.subarray(65_536));
		expect(
			state.handle({ kind: 'chunk', session: 1, direction: 'encrypt', index: 1, last: true, length: 100, buffer: last })
		).toMatchObject({ ok: true });
		expect(Buffer.compare(new Uint8Array(last, 0, lastLength), ciphertext.subarray(ENCRYPTED_CHUNK_SIZE))).toBe(0);
		expect(
			state.handle({ kind: 'chunk', session: 1, direction: 'decrypt', index: 1, last: true, length: lastLength, buffer: last })
		).toMatchObject({ ok: true });
		expect(Buffer.compare(new Uint8Array(last, 0, 100), plaintext.subarray(65_536))).toBe(0);
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
			expect(
				state.handle({ kind: 'chunk', session: 1, direction: 'decrypt', index, last, length: ENCRYPTED_CHUNK_SIZE, buffer })
			).toMatchObject({
				ok: false
			});
			expect(Buffer.compare(new Uint8Array(buffer), chunk)).toBe(0);
		}
		const tampered = bufferOf(chunk);
		new Uint8Array(tampered)[5] ^= 1;
		expect(okOf(state.handle(decryptJob(tampered, 1, 0, false)))).toBe(false);
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
		const buffer = bufferOf(ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE));
		expect(state.handle(decryptJob(buffer, 4, 0, false))).toMatchObject({
			session: 4,
			index: 0,
			ok: false
		});
		expect(okOf(state.handle(decryptJob(buffer, 5, 0, false)))).toBe(true);
	});
});
