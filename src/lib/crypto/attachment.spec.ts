import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeOf } from '../errors';
import { codeOfCall } from '$test-support/error-codes';
import {
	AttachmentDecryptor,
	attachmentChunkAd,
	attachmentCiphertextLength,
	attachmentKeysOf,
	buildAttachmentMeta,
	ChunkCipher,
	decryptAttachment,
	digestMatches,
	ENCRYPTED_CHUNK_SIZE,
	encryptAttachment,
	AttachmentEncryptor,
	IncrementalDigest
} from './attachment';
import { CHUNK_SIZE, type AttachmentMeta } from './attachment-meta';
import { b64uEncode } from './encoding';
import { initCrypto } from './sodium';

beforeAll(() => initCrypto());

const attachmentId = 'att_propertyTest01';
const MAX_SIZE = 3 * CHUNK_SIZE;

/** Random bytes from WebCrypto (libsodium's WASM randombytes draws 4 bytes per call: too slow for files). */
function randomFile(size: number): Uint8Array {
	const bytes = new Uint8Array(size);
	for (let offset = 0; offset < size; offset += 65_536) crypto.getRandomValues(bytes.subarray(offset, offset + 65_536));
	return bytes;
}

function encrypted(size: number) {
	const plaintext = randomFile(size);
	const encryption = encryptAttachment(plaintext, { attachmentId });
	const meta = buildAttachmentMeta({ attachmentId, name: 'file.bin', mime: 'application/octet-stream', size, encryption });
	return { plaintext, ciphertext: encryption.ciphertext, meta };
}

/** Splits `data` at the given cut points (sorted, deduplicated) into pieces. */
function piecesAt(data: Uint8Array, cuts: number[]): Uint8Array[] {
	const points = [...new Set(cuts.map((cut) => cut % (data.length + 1)))].sort((a, b) => a - b);
	const pieces: Uint8Array[] = [];
	let start = 0;
	for (const point of [...points, data.length]) {
		pieces.push(data.subarray(start, point));
		start = point;
	}
	return pieces;
}

/** Streams `pieces` into a decryptor; returns the plaintext or the error code, and nothing partial. */
function streamDecrypt(pieces: Uint8Array[], meta: AttachmentMeta): { plaintext?: Uint8Array; code?: string } {
	const decryptor = new AttachmentDecryptor(meta);
	try {
		for (const piece of pieces) decryptor.push(piece);
		return { plaintext: decryptor.finish() };
	} catch (error) {
		return { code: codeOf(error) };
	}
}

const sizes = fc.oneof(
	fc.constantFrom(0, 1, CHUNK_SIZE - 1, CHUNK_SIZE, CHUNK_SIZE + 1, 2 * CHUNK_SIZE, MAX_SIZE),
	fc.integer({ min: 0, max: MAX_SIZE })
);

describe('attachments (contract 6.5)', () => {
	it('ciphertext length is size + 16 per chunk, an empty file being one chunk', () => {
		expect(attachmentCiphertextLength(0)).toBe(16);
		expect(attachmentCiphertextLength(CHUNK_SIZE)).toBe(CHUNK_SIZE + 16);
		expect(attachmentCiphertextLength(CHUNK_SIZE + 1)).toBe(CHUNK_SIZE + 33);
		expect(attachmentCiphertextLength(26_214_400)).toBe(26_220_800);
		expect(codeOfCall(() => attachmentCiphertextLength(26_214_401))).toBe('INVALID_INPUT');
	});

	it('round-trips 0 to 3 chunks fed to the streaming decryptor in random pieces', () => {
		fc.assert(
			fc.property(sizes, fc.array(fc.nat(), { maxLength: 12 }), (size, cuts) => {
				const { plaintext, ciphertext, meta } = encrypted(size);
				expect(ciphertext.length).toBe(attachmentCiphertextLength(size));
				const result = streamDecrypt(piecesAt(ciphertext, cuts), meta);
				expect(result.code).toBeUndefined();
				expect(Buffer.compare(result.plaintext!, plaintext)).toBe(0); // toEqual walks 196 KB element by element
			}),
			{ numRuns: 40 }
		);
	});

	it('any single changed byte is DECRYPT_FAILED with no output', () => {
		fc.assert(
			fc.property(sizes, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.array(fc.nat(), { maxLength: 6 }), (size, where, mask, cuts) => {
				const { ciphertext, meta } = encrypted(size);
				const tampered = ciphertext.slice();
				tampered[where % tampered.length] ^= mask;
				expect(streamDecrypt(piecesAt(tampered, cuts), meta)).toEqual({ code: 'DECRYPT_FAILED' });
			}),
			{ numRuns: 40 }
		);
	});

	it('truncation and extension are DECRYPT_FAILED with no output', () => {
		fc.assert(
			fc.property(sizes, fc.nat(), fc.integer({ min: 1, max: 70_000 }), (size, cut, extra) => {
				const { ciphertext, meta } = encrypted(size);
				const truncated = ciphertext.subarray(0, cut % ciphertext.length);
				expect(streamDecrypt([truncated], meta)).toEqual({ code: 'DECRYPT_FAILED' });
				const extended = new Uint8Array(ciphertext.length + extra);
				extended.set(ciphertext);
				expect(streamDecrypt([extended], meta)).toEqual({ code: 'DECRYPT_FAILED' });
				expect(streamDecrypt([ciphertext, new Uint8Array(1)], meta)).toEqual({ code: 'DECRYPT_FAILED' });
			}),
			{ numRuns: 30 }
		);
	});

	it('swapped chunks are DECRYPT_FAILED with no output', () => {
		fc.assert(
			fc.property(fc.integer({ min: 2 * CHUNK_SIZE + 1, max: MAX_SIZE }), fc.constantFrom([0, 1], [1, 2], [0, 2]), (size, [a, b]) => {
				// a swap with the third chunk needs it full-size: then the file is exactly three chunks long
				const { ciphertext, meta } = encrypted(b === 2 ? MAX_SIZE : size);
				const swapped = ciphertext.slice();
				const chunk = (i: number) => ciphertext.subarray(i * ENCRYPTED_CHUNK_SIZE, (i + 1) * ENCRYPTED_CHUNK_SIZE);
				expect(chunk(b)).toHaveLength(ENCRYPTED_CHUNK_SIZE);
				swapped.set(chunk(b), a * ENCRYPTED_CHUNK_SIZE);
				swapped.set(chunk(a), b * ENCRYPTED_CHUNK_SIZE);
				expect(streamDecrypt([swapped], meta)).toEqual({ code: 'DECRYPT_FAILED' });
			}),
			{ numRuns: 20 }
		);
	});

	it('is bound to the attachment id, file key and digest of its meta', () => {
		const { ciphertext, meta } = encrypted(1000);
		const other = encrypted(1000).meta;
		for (const changed of [
			{ attachmentId: 'att_another0000001' },
			{ key: other.key },
			{ nonce: other.nonce },
			{ digest: other.digest },
			{ size: 999 }
		]) {
			expect(codeOfCall(() => decryptAttachment(ciphertext, { ...meta, ...changed }))).toBe('DECRYPT_FAILED');
		}
	});

	it('a failed decryptor stays failed and wipes its partial plaintext', () => {
		const { ciphertext, meta } = encrypted(2 * CHUNK_SIZE + 10);
		const tampered = ciphertext.slice();
		tampered[tampered.length - 1] ^= 1;
		const decryptor = new AttachmentDecryptor(meta);
		decryptor.push(tampered.subarray(0, 2 * ENCRYPTED_CHUNK_SIZE));
		expect(codeOfCall(() => decryptor.push(tampered.subarray(2 * ENCRYPTED_CHUNK_SIZE)))).toBe('DECRYPT_FAILED');
		expect(codeOfCall(() => decryptor.finish())).toBe('DECRYPT_FAILED');
		const internal = (decryptor as unknown as { plaintext: Uint8Array }).plaintext;
		expect(internal.every((byte) => byte === 0)).toBe(true);
	});

	it('says why a ciphertext is refused, once, and nothing more after it finished', () => {
		const { ciphertext, meta } = encrypted(CHUNK_SIZE + 5);
		const reason = (run: (decryptor: AttachmentDecryptor) => unknown) => {
			const decryptor = new AttachmentDecryptor(meta);
			try {
				run(decryptor);
			} catch (error) {
				return (error as Error).message;
			}
			return 'no error';
		};
		const flipped = ciphertext.slice();
		flipped[3] ^= 1;
		expect(reason((d) => d.push(flipped))).toBe('attachment: chunk 0 does not authenticate');
		expect(reason((d) => d.push(Uint8Array.from([...ciphertext, 0])))).toBe(
			'attachment: the ciphertext is longer than the meta size allows'
		);
		expect(reason((d) => (d.push(ciphertext.subarray(0, ciphertext.length - 1)), d.finish()))).toBe(
			`attachment: the ciphertext is ${ciphertext.length - 1} bytes, expected ${ciphertext.length}`
		);
		expect(reason((d) => d.finish())).toBe(`attachment: the ciphertext is 0 bytes, expected ${ciphertext.length}`);
		const otherDigest = { ...meta, digest: b64uEncode(new Uint8Array(32)) };
		expect(() => decryptAttachment(ciphertext, otherDigest)).toThrow('attachment: the plaintext digest differs from the meta');
		expect(reason((d) => d.abort())).toBe('attachment: aborted');

		const done = new AttachmentDecryptor(meta);
		done.push(ciphertext);
		done.finish();
		expect(() => done.push(new Uint8Array(1))).toThrow('the decryptor has finished');
		expect(() => done.finish()).toThrow('the decryptor has finished');
		const failed = new AttachmentDecryptor(meta);
		expect(() => failed.push(flipped)).toThrow('chunk 0 does not authenticate');
		const consumed = failed.bytesReceived;
		expect(() => failed.push(ciphertext)).toThrow('attachment: chunk 0 does not authenticate');
		expect(failed.bytesReceived).toBe(consumed); // nothing more is read into the released buffers
		expect(() => failed.finish()).toThrow('attachment: chunk 0 does not authenticate');
	});

	it('an encryptor takes exactly the declared size, and keeps the keys it was given unchanged', () => {
		const fileKey = new Uint8Array(32).fill(7);
		const nonceBase = new Uint8Array(24).fill(9);
		const longer = new AttachmentEncryptor({ attachmentId, size: 3, fileKey, nonceBase });
		expect(() => longer.push(new Uint8Array(4))).toThrow('the file is longer than its declared size 3');
		const shorter = new AttachmentEncryptor({ attachmentId, size: 3, fileKey, nonceBase });
		shorter.push(new Uint8Array(2));
		expect(() => shorter.finish()).toThrow('the file is shorter than its declared size 3');
		const exact = new AttachmentEncryptor({ attachmentId, size: 3, fileKey, nonceBase });
		exact.push(new Uint8Array([1, 2, 3]));
		const result = exact.finish();
		fileKey.fill(0);
		nonceBase.fill(0);
		expect(result.fileKey).toEqual(new Uint8Array(32).fill(7));
		expect(result.nonceBase).toEqual(new Uint8Array(24).fill(9));
		expect(() => new AttachmentEncryptor({ attachmentId: 'att_x', size: 1 })).toThrow('attachmentId must match ^att_[A-Za-z0-9_-]{8,64}$');
		expect(() => new AttachmentEncryptor({ attachmentId, size: 1, fileKey: new Uint8Array(31) })).toThrow(/^file key /);
		expect(() => new AttachmentEncryptor({ attachmentId, size: 1, nonceBase: new Uint8Array(23) })).toThrow(/^nonceBase /);
		expect(() => new AttachmentEncryptor({ attachmentId, size: -1 })).toThrow(/^size must be an integer from 0 to 26214400/);
	});

	it('builds each chunk’s AD from the attachment id, the index and whether it is the last', () => {
		expect(attachmentChunkAd('att_adCheck00001', 7, true)).toBe('Service|v1|att|att_adCheck00001|7|1');
		expect(attachmentChunkAd('att_adCheck00001', 0, false)).toBe('Service|v1|att|att_adCheck00001|0|0');
	});

	it('names the field of a meta whose key, nonce or digest has the wrong length', () => {
		const { meta } = encrypted(10);
		const short = b64uEncode(new Uint8Array(8));
		expect(() => attachmentKeysOf({ ...meta, key: short })).toThrow('key must be 32 bytes, got 8');
		expect(() => attachmentKeysOf({ ...meta, nonce: short })).toThrow('nonce must be 24 bytes, got 8');
		expect(() => digestMatches(new Uint8Array(32), { ...meta, digest: short })).toThrow('digest must be 32 bytes, got 8');
	});
});

describe('what the attachment ciphers leave in the WASM heap', () => {
	/** Whether `bytes` appear anywhere in the heap of libsodium's WASM instance. */
	const inHeap = (heap: Uint8Array, bytes: Uint8Array) =>
		Buffer.from(heap.buffer, heap.byteOffset, heap.byteLength).indexOf(Buffer.from(bytes)) >= 0;
	const randomKeys = () => ({ fileKey: randomFile(32), nonceBase: randomFile(24) });

	it('a chunk cipher keeps its own nonce base, and wipes the plaintext and ciphertext it handled', () => {
		const keys = randomKeys();
		const plaintext = randomFile(CHUNK_SIZE + 1);
		const { ciphertext } = encryptAttachment(plaintext, { attachmentId, ...keys });
		const cipher = new ChunkCipher(keys.fileKey, keys.nonceBase, attachmentId);
		keys.nonceBase.fill(0);
		const heap = () => cipher.heap;
		// past the plaintext, the output buffer is not the cipher's to touch
		heap().fill(0xaa, cipher.output + CHUNK_SIZE, cipher.output + ENCRYPTED_CHUNK_SIZE);
		const chunk = ciphertext.slice(0, ENCRYPTED_CHUNK_SIZE);
		expect(cipher.decryptInPlace(0, false, chunk, ENCRYPTED_CHUNK_SIZE)).toBe(true);
		expect(Buffer.compare(chunk.subarray(0, CHUNK_SIZE), plaintext.subarray(0, CHUNK_SIZE))).toBe(0);
		expect(
			heap()
				.subarray(cipher.output, cipher.output + CHUNK_SIZE)
				.every((byte) => byte === 0)
		).toBe(true);
		expect(
			heap()
				.subarray(cipher.output + CHUNK_SIZE, cipher.output + ENCRYPTED_CHUNK_SIZE)
				.every((byte) => byte === 0xaa)
		).toBe(true);

		cipher.encryptInPlace(0, false, chunk, CHUNK_SIZE);
		expect(Buffer.compare(chunk, ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE))).toBe(0);
		expect(
			heap()
				.subarray(cipher.input, cipher.input + CHUNK_SIZE)
				.every((byte) => byte === 0)
		).toBe(true);
		cipher.release();
	});

	it('releasing a chunk cipher or a digest leaves neither the key nor the last hashed bytes in the heap', () => {
		const { fileKey, nonceBase } = randomKeys();
		const cipher = new ChunkCipher(fileKey, nonceBase, attachmentId);
		expect(inHeap(cipher.heap, fileKey)).toBe(true);
		cipher.release();
		expect(inHeap(cipher.heap, fileKey)).toBe(false);

		const hashed = randomFile(1000);
		const digest = new IncrementalDigest();
		digest.update(hashed);
		digest.final();
		expect(inHeap(cipher.heap, hashed)).toBe(true);
		digest.release();
		expect(inHeap(cipher.heap, hashed)).toBe(false);
	});

	it('a finished encryption or decryption leaves no copy of F in the heap', () => {
		const keys = randomKeys();
		const plaintext = randomFile(CHUNK_SIZE + 100);
		const heap = new ChunkCipher(randomFile(32), randomFile(24), attachmentId);
		heap.release();
		const encryption = encryptAttachment(plaintext, { attachmentId, ...keys });
		expect(inHeap(heap.heap, keys.fileKey)).toBe(false);
		const meta = buildAttachmentMeta({ attachmentId, name: 'f.bin', mime: 'application/octet-stream', size: plaintext.length, encryption });
		expect(Buffer.compare(decryptAttachment(encryption.ciphertext, meta), plaintext)).toBe(0);
		expect(inHeap(heap.heap, keys.fileKey)).toBe(false);
	});
});
