import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeChunkWorkerPool } from '../../../tests/support/node-chunk-workers';
import { attachmentCiphertextLength, decryptAttachment } from '../crypto/attachment';
import { MAX_ATTACHMENT_SIZE } from '../crypto/attachment-meta';
import { ContractError } from '../errors';
import { initCrypto } from '../crypto/sodium';
import { attachmentPattern } from '../conformance/runner';
import { encryptFile as encryptFileWith } from './attachment-upload';
import type { AttachmentDetails, Progress } from './types';

const pool = nodeChunkWorkerPool(2);
const encryptFile = (file: Blob, details: AttachmentDetails, onProgress?: (progress: Progress) => void) =>
	encryptFileWith(pool, file, details, onProgress);

beforeAll(async () => {
	await initCrypto();
});
afterAll(() => pool.terminate());

async function codeOfCall(operation: () => Promise<unknown>) {
	try {
		await operation();
	} catch (error) {
		return error instanceof ContractError ? error.code : 'not a ContractError';
	}
	return 'no error';
}

describe('attachment encryption in the worker', () => {
	it('encrypts a File with progress into an ArrayBuffer of the exact length, with a meta the receiver accepts', async () => {
		const plaintext = attachmentPattern(1_000_000);
		const seen: Progress[] = [];
		const file = new File([plaintext as Uint8Array<ArrayBuffer>], 'scan.PDF', { type: 'application/PDF; charset=binary' });
		const { ciphertext, meta } = await encryptFile(file, { attachmentId: 'att_uploadSpec0001', caption: 'the scan' }, (p) => seen.push(p));
		expect(ciphertext).toBeInstanceOf(ArrayBuffer);
		expect(ciphertext.byteLength).toBe(attachmentCiphertextLength(plaintext.length));
		expect(meta).toMatchObject({
			attachmentId: 'att_uploadSpec0001',
			name: 'scan.PDF',
			mime: 'application/pdf',
			size: 1_000_000,
			caption: 'the scan'
		});
		expect(Buffer.compare(decryptAttachment(new Uint8Array(ciphertext), meta), plaintext)).toBe(0);
		expect(seen.length).toBeGreaterThanOrEqual(3);
		expect(seen.at(-1)).toEqual({ done: 1_000_000, total: 1_000_000 });
	});

	it('each file gets its own key and nonce base', async () => {
		const file = new Blob([new Uint8Array(10)]);
		const first = await encryptFile(file, { attachmentId: 'att_uploadSpec0002', name: 'a' });
		const second = await encryptFile(file, { attachmentId: 'att_uploadSpec0002', name: 'a' });
		expect(first.meta.key).not.toBe(second.meta.key);
		expect(first.meta.nonce).not.toBe(second.meta.nonce);
		expect(first.meta.mime).toBe('application/octet-stream');
	});

	it('refuses a bad name, id or mime before reading the file', async () => {
		const seen: Progress[] = [];
		const file = new File([new Uint8Array(100)], 'ok.txt');
		expect(await codeOfCall(() => encryptFile(file, { attachmentId: 'att_uploadSpec0003', name: 'a/b' }, (p) => seen.push(p)))).toBe(
			'INVALID_INPUT'
		);
		expect(await codeOfCall(() => encryptFile(file, { attachmentId: 'att_short' }))).toBe('INVALID_INPUT');
		expect(await codeOfCall(() => encryptFile(file, { attachmentId: 'att_uploadSpec0003', mime: 'Text/Plain' }))).toBe('INVALID_INPUT');
		expect(await codeOfCall(() => encryptFile('text' as never, { attachmentId: 'att_uploadSpec0003' }))).toBe('INVALID_INPUT');
		expect(seen).toEqual([]);
	});

	it('a Blob without a name needs one', async () => {
		expect(await codeOfCall(() => encryptFile(new Blob([new Uint8Array(1)]), { attachmentId: 'att_uploadSpec0004' }))).toBe(
			'INVALID_INPUT'
		);
	});

	it('takes a file up to the largest size, its type without parameters, and refuses details that are no object', async () => {
		const typed = new File([new Uint8Array(3)], 'a.txt', { type: ' Text/Plain ; charset=utf-8' });
		expect((await encryptFile(typed, { attachmentId: 'att_uploadSpec0005' })).meta.mime).toBe('text/plain');
		await expect(encryptFile(typed, null as never)).rejects.toThrow('attachment details must be an object');
		await expect(encryptFile('text' as never, { attachmentId: 'att_uploadSpec0005' })).rejects.toThrow('file must be a File or a Blob');
		const largest = new File([new Uint8Array(MAX_ATTACHMENT_SIZE)], 'large.bin');
		expect((await encryptFile(largest, { attachmentId: 'att_uploadSpec0006' })).meta.size).toBe(MAX_ATTACHMENT_SIZE);
		const tooLarge = new File([new Uint8Array(MAX_ATTACHMENT_SIZE + 1)], 'large.bin');
		await expect(encryptFile(tooLarge, { attachmentId: 'att_uploadSpec0006' })).rejects.toThrow(
			`an attachment is at most ${MAX_ATTACHMENT_SIZE} bytes, this file has ${MAX_ATTACHMENT_SIZE + 1}`
		);
	});

	it('a file that cannot be read, or grows while read, is INVALID_INPUT saying so', async () => {
		class UnreadableFile extends File {
			override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
				return new ReadableStream({ pull: (controller) => controller.error(new Error('the disk is gone')) });
			}
		}
		await expect(encryptFile(new UnreadableFile([new Uint8Array(5)], 'gone.bin'), { attachmentId: 'att_uploadSpec0007' })).rejects.toThrow(
			'the file could not be read: the disk is gone'
		);
		class GrowingFile extends File {
			override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
				return new Blob([new Uint8Array(this.size + 1)]).stream();
			}
		}
		await expect(encryptFile(new GrowingFile([new Uint8Array(5)], 'grows.bin'), { attachmentId: 'att_uploadSpec0008' })).rejects.toThrow(
			'the file is longer than its declared size 5'
		);
	});
});
