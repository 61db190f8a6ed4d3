import { beforeAll, describe, expect, it } from 'vitest';
import { attachmentCiphertextLength, buildAttachmentMeta, encryptAttachment } from '../attachment';
import type { AttachmentMeta } from '../attachment-meta';
import { initCrypto } from '../sodium';
import { attachmentPattern } from '../vectors/runner';
import { AttachmentDownloads, MAX_RUNNING_DECRYPTIONS } from './attachment-download';
import { codeOfCall } from '../test-support';

const attachmentId = 'att_downloadSpec01';
const size = 200_000;
let ciphertext: Uint8Array;
let meta: AttachmentMeta;

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
		const downloads = new AttachmentDownloads();
		const { id, ciphertextLength } = downloads.begin(meta, attachmentCiphertextLength(size));
		expect(ciphertextLength).toBe(ciphertext.length);
		for (const piece of pieces(ciphertext)) expect(downloads.push(id, piece)).toBe(piece.buffer);
		const { blob, size: blobSize } = downloads.finish(id);
		expect(blobSize).toBe(size);
		expect(blob.type).toBe('application/x-pattern');
		expect(Buffer.compare(new Uint8Array(await blob.arrayBuffer()), attachmentPattern(size))).toBe(0);
		expect(codeOfCall(() => downloads.finish(id))).toBe('DECRYPT_FAILED');
	});

	it('a tampered piece is DECRYPT_FAILED at once, and the decryption is gone', () => {
		const downloads = new AttachmentDownloads();
		const { id } = downloads.begin(meta);
		const tampered = pieces(ciphertext);
		tampered[1][10] ^= 1;
		downloads.push(id, tampered[0]);
		expect(codeOfCall(() => downloads.push(id, tampered[1]))).toBe('DECRYPT_FAILED');
		expect(codeOfCall(() => downloads.push(id, tampered[2]))).toBe('DECRYPT_FAILED');
	});

	it('a missing end, too many bytes, or a wrong announced size are DECRYPT_FAILED', () => {
		const downloads = new AttachmentDownloads();
		const short = downloads.begin(meta);
		downloads.push(short.id, ciphertext.slice(0, 1000));
		expect(codeOfCall(() => downloads.finish(short.id))).toBe('DECRYPT_FAILED');
		const long = downloads.begin(meta);
		expect(codeOfCall(() => downloads.push(long.id, new Uint8Array(ciphertext.length + 1)))).toBe('DECRYPT_FAILED');
		expect(codeOfCall(() => downloads.begin(meta, ciphertext.length + 16))).toBe('DECRYPT_FAILED');
	});

	it('an invalid meta is refused before any byte, with its own code', () => {
		const downloads = new AttachmentDownloads();
		expect(codeOfCall(() => downloads.begin({ ...meta, name: '../x' }))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => downloads.begin({ ...meta, chunkSize: 1024 }))).toBe('UNSUPPORTED_VERSION');
	});

	it('abort stops a decryption, abortAll (on lock) every one; at most a few run at once', () => {
		const downloads = new AttachmentDownloads();
		const ids = Array.from({ length: MAX_RUNNING_DECRYPTIONS }, () => downloads.begin(meta).id);
		expect(codeOfCall(() => downloads.begin(meta))).toBe('INVALID_INPUT');
		downloads.abort(ids[0], 'the page gave up');
		expect(codeOfCall(() => downloads.push(ids[0], ciphertext.slice(0, 10)))).toBe('DECRYPT_FAILED');
		expect(downloads.begin(meta).id).toMatch(/^dec_/);
		downloads.abortAll();
		for (const id of ids) expect(codeOfCall(() => downloads.finish(id))).toBe('DECRYPT_FAILED');
		expect(Array.from({ length: MAX_RUNNING_DECRYPTIONS }, () => downloads.begin(meta).id)).toHaveLength(MAX_RUNNING_DECRYPTIONS);
	});

	it('names each refusal, gives each decryption its own id, and aborting twice or an unknown id is harmless', () => {
		const downloads = new AttachmentDownloads();
		const first = downloads.begin(meta).id;
		const second = downloads.begin(meta).id;
		expect([first, second]).toEqual(['dec_1', 'dec_2']);
		expect(() => downloads.begin(meta, ciphertext.length + 16)).toThrow(
			`attachment: the ciphertext is announced as ${ciphertext.length + 16} bytes, expected ${ciphertext.length}`
		);
		expect(() => downloads.push(first, 'bytes' as never)).toThrow('attachment: a piece must be bytes');
		expect(() => downloads.push(first, ciphertext.slice(0, 1))).toThrow('attachment decryption dec_1 is not running');
		downloads.abort(second);
		downloads.abort(second);
		downloads.abort('dec_unknown');
		const running = Array.from({ length: MAX_RUNNING_DECRYPTIONS }, () => downloads.begin(meta).id);
		expect(() => downloads.begin(meta)).toThrow(`at most ${MAX_RUNNING_DECRYPTIONS} attachment decryptions may run at once`);
		downloads.abortAll();
		expect(() => downloads.finish(running[0])).toThrow(`attachment decryption ${running[0]} is not running`);
	});

	it('hands the piece’s own buffer back, for the page to refill', () => {
		const downloads = new AttachmentDownloads();
		const { id } = downloads.begin(meta);
		const piece = ciphertext.slice(0, 100);
		expect(downloads.push(id, piece)).toBe(piece.buffer);
	});
});
