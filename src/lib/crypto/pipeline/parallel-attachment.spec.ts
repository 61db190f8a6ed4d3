import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeChunkWorkerPool } from '../../../../tests/support/node-chunk-workers';
import { buildAttachmentMeta, ENCRYPTED_CHUNK_SIZE, encryptAttachment } from '../attachment';
import type { AttachmentMeta } from '../attachment-meta';
import { initCrypto } from '../sodium';
import { codeOfAsyncCall } from '../test-support';
import { coreImplementation, withAttachmentPipeline } from '../vectors/implementation';
import { attachmentPattern, conformanceCases, runCase } from '../vectors/runner';
import { ParallelAttachmentDecryptor, ParallelAttachmentEncryptor } from './parallel-attachment';

const pool = nodeChunkWorkerPool(2);
const attachmentId = 'att_pipelineSpec01';
const size = 12 * 65_536 + 1000;
const plaintext = attachmentPattern(size);
let ciphertext: Uint8Array;
let meta: AttachmentMeta;

beforeAll(async () => {
	await initCrypto();
	const encryption = encryptAttachment(plaintext, { attachmentId });
	ciphertext = encryption.ciphertext;
	meta = buildAttachmentMeta({ attachmentId, name: 'pattern.bin', mime: 'application/octet-stream', size, encryption });
});
afterAll(() => pool.terminate());

const chunk = (bytes: Uint8Array, index: number) => bytes.subarray(index * ENCRYPTED_CHUNK_SIZE, (index + 1) * ENCRYPTED_CHUNK_SIZE);

/** Decrypts `bytes` through the pipeline in pieces of `pieceSize`; the outcome and what the decryptor holds after. */
async function decrypt(bytes: Uint8Array, metaOf: unknown = meta, pieceSize = 50_000) {
	const decryptor = new ParallelAttachmentDecryptor(pool, metaOf);
	const code = await codeOfAsyncCall(async () => {
		for (let offset = 0; offset < bytes.length; offset += pieceSize) await decryptor.push(bytes.subarray(offset, offset + pieceSize));
		return decryptor.finish();
	});
	const held = (decryptor as unknown as { plaintext: Uint8Array }).plaintext;
	return { code, decryptor, nothingKept: held.every((byte) => byte === 0) };
}

/** Every worker has wiped and forgotten every session's key. */
const expectAllKeysReleased = async () => expect(await pool.status()).toEqual(Array(pool.running).fill(0));

describe('the parallel chunk pipeline', () => {
	it('decrypts and encrypts like the core, byte for byte, in pieces of any size, and releases every key', async () => {
		for (const pieceSize of [1, 1000, 65_552, 200_000, ciphertext.length]) {
			const decryptor = new ParallelAttachmentDecryptor(pool, meta);
			const small = pieceSize === 1 ? ciphertext.subarray(0, 70_000) : ciphertext;
			if (pieceSize === 1) {
				for (const byte of small) await decryptor.push(Uint8Array.of(byte));
				decryptor.abort();
				continue;
			}
			for (let offset = 0; offset < ciphertext.length; offset += pieceSize)
				await decryptor.push(ciphertext.subarray(offset, offset + pieceSize));
			expect(Buffer.compare(await decryptor.finish(), plaintext)).toBe(0);
		}
		const encryption = encryptAttachment(plaintext, { attachmentId });
		const encryptor = new ParallelAttachmentEncryptor(pool, {
			attachmentId,
			size,
			fileKey: encryption.fileKey,
			nonceBase: encryption.nonceBase
		});
		for (let offset = 0; offset < size; offset += 77_777) await encryptor.push(plaintext.subarray(offset, offset + 77_777));
		const again = await encryptor.finish();
		expect(Buffer.compare(again.ciphertext, encryption.ciphertext)).toBe(0);
		expect(again.digest).toBe(encryption.digest);
		await expectAllKeysReleased();
	});

	it('passes the public attachment vectors, plain and derived, through the pipeline', async () => {
		const file = JSON.parse(readFileSync(new URL('../../../../vectors/conformance.json', import.meta.url), 'utf8'));
		const pipeline = withAttachmentPipeline(coreImplementation(), pool);
		const cases = conformanceCases(file).filter((c) => c.group === 'attachments' || c.group === 'derivedAttachments');
		expect(cases).toHaveLength(12);
		for (const testCase of cases) {
			const result = await runCase(testCase, pipeline);
			expect(result.ok, `${testCase.name}: ${result.detail}`).toBe(true);
		}
		await expectAllKeysReleased();
	});

	describe('every fault ends in DECRYPT_FAILED with nothing delivered and every key released', () => {
		const faults: Array<[string, () => { bytes: Uint8Array; meta?: unknown }]> = [
			[
				'a chunk truncated',
				() => ({ bytes: Buffer.concat([ciphertext.subarray(0, ENCRYPTED_CHUNK_SIZE - 1), ciphertext.subarray(ENCRYPTED_CHUNK_SIZE)]) })
			],
			[
				'two chunks reordered',
				() => ({ bytes: Buffer.concat([chunk(ciphertext, 1), chunk(ciphertext, 0), ciphertext.subarray(2 * ENCRYPTED_CHUNK_SIZE)]) })
			],
			[
				'a chunk duplicated in place of the next',
				() => ({ bytes: Buffer.concat([chunk(ciphertext, 0), chunk(ciphertext, 0), ciphertext.subarray(2 * ENCRYPTED_CHUNK_SIZE)]) })
			],
			['a chunk duplicated at the end', () => ({ bytes: Buffer.concat([ciphertext, chunk(ciphertext, 3)]) })],
			[
				'a flipped bit in the last chunk',
				() => {
					const bytes = ciphertext.slice();
					bytes[bytes.length - 20] ^= 0x40;
					return { bytes };
				}
			],
			[
				'a wrong digest',
				() => ({ bytes: ciphertext, meta: { ...meta, digest: meta.digest.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) } })
			],
			['a download cut mid-way', () => ({ bytes: ciphertext.subarray(0, 5 * ENCRYPTED_CHUNK_SIZE + 123) })],
			['a download cut at a chunk boundary', () => ({ bytes: ciphertext.subarray(0, 5 * ENCRYPTED_CHUNK_SIZE) })]
		];
		for (const [name, fault] of faults) {
			it(name, async () => {
				const { bytes, meta: faultyMeta } = fault();
				const outcome = await decrypt(bytes, faultyMeta ?? meta);
				expect(outcome.code).toBe('DECRYPT_FAILED');
				expect(outcome.nothingKept).toBe(true);
				await expect(outcome.decryptor.finish()).rejects.toThrow(/^attachment: /);
				await expectAllKeysReleased();
			});
		}
	});

	it('a chunk worker that dies fails the decryption and the encryption running on it; the pool starts a new one', async () => {
		const decryptor = new ParallelAttachmentDecryptor(pool, meta);
		const encryptor = new ParallelAttachmentEncryptor(pool, { attachmentId, size });
		await decryptor.push(ciphertext.subarray(0, 3 * ENCRYPTED_CHUNK_SIZE));
		await encryptor.push(plaintext.subarray(0, 3 * 65_536));
		await pool.threads[0].terminate();
		expect(await codeOfAsyncCall(() => decryptor.finish())).toBe('DECRYPT_FAILED');
		await expect(decryptor.finish()).rejects.toThrow('attachment: a chunk worker stopped: exited with code 1');
		expect((decryptor as unknown as { plaintext: Uint8Array }).plaintext.every((byte) => byte === 0)).toBe(true);
		expect(await codeOfAsyncCall(() => encryptor.push(plaintext.subarray(3 * 65_536)))).toBe('WORKER_STOPPED');
		expect(encryptor.ciphertext.every((byte) => byte === 0)).toBe(true);

		const again = await decrypt(ciphertext);
		expect(again.code).toBe('no error');
		expect(pool.running).toBe(2);
		await expectAllKeysReleased();
	});

	it('keeps the chunks in flight bounded: a reader far ahead waits', async () => {
		const decryptor = new ParallelAttachmentDecryptor(pool, meta);
		let settled = false;
		const push = decryptor.push(ciphertext).then(() => (settled = true));
		// The whole file in one piece: the push returns only once all of its chunks went to the workers.
		expect(settled).toBe(false);
		await push;
		expect(Buffer.compare(await decryptor.finish(), plaintext)).toBe(0);
	});

	it('the encryptor refuses a file longer or shorter than declared, and a finished pipeline refuses more', async () => {
		const longer = new ParallelAttachmentEncryptor(pool, { attachmentId, size: 10 });
		await expect(longer.push(new Uint8Array(11))).rejects.toThrow('attachment: the file is longer than its declared size 10');
		const shorter = new ParallelAttachmentEncryptor(pool, { attachmentId, size: 10 });
		await shorter.push(new Uint8Array(9));
		expect(await codeOfAsyncCall(() => shorter.finish())).toBe('INVALID_INPUT');
		const done = new ParallelAttachmentEncryptor(pool, { attachmentId, size: 0 });
		expect((await done.finish()).ciphertext).toHaveLength(16);
		expect(await codeOfAsyncCall(() => done.push(new Uint8Array(1)))).toBe('INVALID_INPUT');
		const decrypted = await decrypt(ciphertext);
		expect(await codeOfAsyncCall(() => decrypted.decryptor.push(new Uint8Array(1)))).toBe('DECRYPT_FAILED');
		await expectAllKeysReleased();
	});
});
