import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeChunkWorkerPool } from '../../../tests/support/node-chunk-workers';
import { attachmentCiphertextLength, buildAttachmentMeta, encryptAttachment } from '../crypto/attachment';
import type { AttachmentMeta } from '../crypto/attachment-meta';
import { initCrypto } from '../crypto/sodium';
import { attachmentPattern } from '../conformance/runner';
import { AttachmentDownloads, MAX_RUNNING_DECRYPTIONS } from './attachment-download';
import { codeOfAsyncCall as codeOf, codeOfCall } from '$test-support/error-codes';

const attachmentId = 'att_downloadSpec01';
const size = 200_000;
let ciphertext: Uint8Array;
let meta: AttachmentMeta;

const pool = nodeChunkWorkerPool(2);
afterAll(() => pool.terminate());

beforeAll(async () => {
	await initCrypto();
	const encryption = encryptAttachment(attachmentPattern(size), { attachmentId });
	ciphertext = encryption.ciphertext;
	meta = buildAttachmentMeta({ attachmentId, name: 'pattern.bin', mime: 'application/x-pattern', size, encryption });
});

function pieces(bytes: Uint8Array, length = 65_536): Uint8Array[] {
	const out: Uint8Array[] = [];
	for (let offset = 0; offset < bytes.length; offset += length) out.push(bytes.slice(offset, offset + length));
	return out;
}

describe('streamed attachment decryption in the worker', () => {
	it('decrypts piece by piece, hands each buffer back, and releases a typed Blob at the end', async () => {
		const downloads = new AttachmentDownloads(() => pool);
		const { id, ciphertextLength } = downloads.begin(meta, attachmentCiphertextLength(size));
		expect(ciphertextLength).toBe(ciphertext.length);
		for (const piece of pieces(ciphertext)) expect(await downloads.push(id, piece)).toBe(piece.buffer);
		const { blob, size: blobSize } = await downloads.finish(id);
		expect(blobSize).toBe(size);
		expect(blob.type).toBe('application/x-pattern');
		expect(Buffer.compare(new Uint8Array(await blob.arrayBuffer()), attachmentPattern(size))).toBe(0);
		expect(await codeOf(() => downloads.finish(id))).toBe('DECRYPT_FAILED');
		expect(await pool.status()).toEqual([0, 0]);
	});

	it('a tampered piece is DECRYPT_FAILED at the latest when finishing, and the decryption is gone', async () => {
		const downloads = new AttachmentDownloads(() => pool);
		const { id } = downloads.begin(meta);
		const tampered = pieces(ciphertext);
		tampered[1][10] ^= 1;
		// A push returns once its chunks are in the workers' hands: the failure may come with a later one.
		const codes = [];
		for (const piece of tampered) codes.push(await codeOf(() => downloads.push(id, piece)));
		expect(codes.slice(0, 2)).toEqual(['no error', 'no error']);
		expect(codes.filter((code) => code !== 'no error').every((code) => code === 'DECRYPT_FAILED')).toBe(true);
		expect(await codeOf(() => downloads.finish(id))).toBe('DECRYPT_FAILED');
		expect(await pool.status()).toEqual([0, 0]);
	});

	it('a missing end, too many bytes, or a wrong announced size are DECRYPT_FAILED', async () => {
		const downloads = new AttachmentDownloads(() => pool);
		const short = downloads.begin(meta);
		await downloads.push(short.id, ciphertext.slice(0, 1000));
		expect(await codeOf(() => downloads.finish(short.id))).toBe('DECRYPT_FAILED');
		const long = downloads.begin(meta);
		expect(await codeOf(() => downloads.push(long.id, new Uint8Array(ciphertext.length + 1)))).toBe('DECRYPT_FAILED');
		expect(codeOfCall(() => downloads.begin(meta, ciphertext.length + 16))).toBe('DECRYPT_FAILED');
	});

	it('an invalid meta is refused before any byte, with its own code', () => {
		const downloads = new AttachmentDownloads(() => pool);
		expect(codeOfCall(() => downloads.begin({ ...meta, name: '../x' }))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => downloads.begin({ ...meta, chunkSize: 1024 }))).toBe('UNSUPPORTED_VERSION');
	});

	it('abort stops a decryption, abortAll (on lock) every one; at most a few run at once', async () => {
		const downloads = new AttachmentDownloads(() => pool);
		const ids = Array.from({ length: MAX_RUNNING_DECRYPTIONS }, () => downloads.begin(meta).id);
		expect(codeOfCall(() => downloads.begin(meta))).toBe('INVALID_INPUT');
		downloads.abort(ids[0], 'the page gave up');
		expect(await codeOf(() => downloads.push(ids[0], ciphertext.slice(0, 10)))).toBe('DECRYPT_FAILED');
		expect(downloads.begin(meta).id).toMatch(/^dec_/);
		downloads.abortAll();
		for (const id of ids) expect(await codeOf(() => downloads.finish(id))).toBe('DECRYPT_FAILED');
		expect(Array.from({ length: MAX_RUNNING_DECRYPTIONS }, () => downloads.begin(meta).id)).toHaveLength(MAX_RUNNING_DECRYPTIONS);
		downloads.abortAll();
		expect(await pool.status()).toEqual([0, 0]);
	});

	it('names each refusal, gives each decryption its own id, and aborting twice or an unknown id is harmless', async () => {
		const downloads = new AttachmentDownloads(() => pool);
		const first = downloads.begin(meta).id;
		const second = downloads.begin(meta).id;
		expect([first, second]).toEqual(['dec_1', 'dec_2']);
		expect(() => downloads.begin(meta, ciphertext.length + 16)).toThrow(
			`attachment: the ciphertext is announced as ${ciphertext.length + 16} bytes, expected ${ciphertext.length}`
		);
		await expect(downloads.push(first, 'bytes' as never)).rejects.toThrow('attachment: a piece must be bytes');
		await expect(downloads.push(first, ciphertext.slice(0, 1))).rejects.toThrow('attachment decryption dec_1 is not running');
		downloads.abort(second);
		downloads.abort(second);
		downloads.abort('dec_unknown');
		const running = Array.from({ length: MAX_RUNNING_DECRYPTIONS }, () => downloads.begin(meta).id);
		expect(() => downloads.begin(meta)).toThrow(`at most ${MAX_RUNNING_DECRYPTIONS} attachment decryptions may run at once`);
		downloads.abortAll();
		await expect(downloads.finish(running[0])).rejects.toThrow(`attachment decryption ${running[0]} is not running`);
	});

	it('hands the piece’s own buffer back, for the page to refill', async () => {
		const downloads = new AttachmentDownloads(() => pool);
		const { id } = downloads.begin(meta);
		const piece = ciphertext.slice(0, 100);
		expect(await downloads.push(id, piece)).toBe(piece.buffer);
		downloads.abort(id);
	});
});
