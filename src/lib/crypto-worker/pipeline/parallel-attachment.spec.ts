import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeChunkWorkerPool } from '../../../../tests/support/node-chunk-workers';
import { buildAttachmentMeta, ENCRYPTED_CHUNK_SIZE, encryptAttachment } from '../../crypto/attachment';
import { CHUNK_SIZE } from '../../crypto/attachment-meta';
import type { AttachmentMeta } from '../../crypto/attachment-meta';
import { initCrypto } from '../../crypto/sodium';
import { codeOfAsyncCall } from '$test-support/error-codes';
import { coreImplementation, withAttachmentPipeline } from '../../conformance/implementation';
import { attachmentPattern, conformanceCases, runCase } from '../../conformance/runner';
import { ChunkWorkerState } from './chunk-worker';
import { ParallelAttachmentDecryptor, ParallelAttachmentEncryptor } from './parallel-attachment';
import { ChunkWorkerPool, type ChunkWorkerEvents } from './pool';
import type { ChunkJob } from './protocol';

const pool = nodeChunkWorkerPool(2);
const attachmentId = 'att_pipelineSpec01';
const size = 12 * 65_536 + 1000;
const plaintext = attachmentPattern(size);
let ciphertext: Uint8Array;
let meta: AttachmentMeta;
/** A file whose chunks all differ (in `plaintext` every whole chunk is the same), so a chunk out of place shows. */
const distinct = Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7 + Math.floor(i / CHUNK_SIZE) * 11) & 255);
let distinctCiphertext: Uint8Array;
let distinctMeta: AttachmentMeta;

beforeAll(async () => {
	await initCrypto();
	const encryption = encryptAttachment(plaintext, { attachmentId });
	ciphertext = encryption.ciphertext;
	meta = buildAttachmentMeta({ attachmentId, name: 'pattern.bin', mime: 'application/octet-stream', size, encryption });
	const distinctEncryption = encryptAttachment(distinct, { attachmentId });
	distinctCiphertext = distinctEncryption.ciphertext;
	distinctMeta = buildAttachmentMeta({
		attachmentId,
		name: 'distinct.bin',
		mime: 'application/octet-stream',
		size,
		encryption: distinctEncryption
	});
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

/**
 * A pool whose chunk workers run in this thread and answer a job only when the test says so: what is in
 * flight, and the order jobs come back in, are the test's to choose. Each worker gets what a thread would:
 * a copy of each message, the job's buffer moved over.
 */
function heldPool(size: number) {
	const workers: ChunkWorkerEvents[] = [];
	const held: Array<{ events: ChunkWorkerEvents; state: ChunkWorkerState; job: ChunkJob }> = [];
	/** The file keys the pool was given to open sessions with (the pipeline's own copies). */
	const openedKeys: Uint8Array[] = [];
	/** Every buffer a worker handed back, in order. */
	const returnedBuffers: ArrayBuffer[] = [];
	const pool = new ChunkWorkerPool((events) => {
		const state = new ChunkWorkerState();
		workers.push(events);
		return {
			post: (message, transfer) => {
				if (message.kind === 'open') openedKeys.push(message.fileKey);
				const received = structuredClone(message, { transfer: transfer as ArrayBuffer[] });
				if (received.kind === 'job') return void held.push({ events, state, job: received });
				const reply = state.handle(received);
				if (reply) events.message(reply);
			},
			terminate: () => undefined
		};
	}, size);
	return {
		pool,
		workers,
		openedKeys,
		returnedBuffers,
		/** The chunks of each job handed out and not answered yet, in the order they went out. */
		heldJobs: () => held.map(({ job }) => job.chunks.map((chunk) => chunk.index)),
		/** A worker answers the job at `position` among those held. */
		answer(position = 0) {
			const [{ events, state, job }] = held.splice(position, 1);
			const reply = state.handle(job)!;
			if (reply.kind === 'job') returnedBuffers.push(reply.buffer);
			events.message(reply);
		}
	};
}

/** Lets every promise reaction already queued run: with a held pool, the pipeline moves on nothing else. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const isWiped = (buffer: ArrayBuffer) => new Uint8Array(buffer).every((byte) => byte === 0);

/** The pipeline, fed `file` in pieces of `pieceSize`, encrypts it exactly as the core does under the same keys. */
async function expectSameEncryption(file: Uint8Array, pieceSize: number): Promise<void> {
	const encryption = encryptAttachment(file, { attachmentId });
	const encryptor = new ParallelAttachmentEncryptor(pool, {
		attachmentId,
		size: file.length,
		fileKey: encryption.fileKey,
		nonceBase: encryption.nonceBase
	});
	for (let offset = 0; offset < file.length; offset += pieceSize) await encryptor.push(file.subarray(offset, offset + pieceSize));
	const parallel = await encryptor.finish();
	expect(Buffer.compare(parallel.ciphertext, encryption.ciphertext)).toBe(0);
	expect(parallel.digest).toBe(encryption.digest);
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
		await expectSameEncryption(plaintext, 77_777);
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
		await expect(shorter.finish()).rejects.toMatchObject({
			code: 'INVALID_INPUT',
			message: 'attachment: the file is shorter than its declared size 10'
		});
		const done = new ParallelAttachmentEncryptor(pool, { attachmentId, size: 0 });
		expect((await done.finish()).ciphertext).toHaveLength(16);
		expect(await codeOfAsyncCall(() => done.push(new Uint8Array(1)))).toBe('INVALID_INPUT');
		const decrypted = await decrypt(ciphertext);
		expect(await codeOfAsyncCall(() => decrypted.decryptor.push(new Uint8Array(1)))).toBe('DECRYPT_FAILED');
		await expectAllKeysReleased();
	});

	it('puts each chunk of a file whose chunks all differ in its place, encrypting and decrypting', async () => {
		await expectSameEncryption(distinct, 100_000);

		const decryptor = new ParallelAttachmentDecryptor(pool, distinctMeta);
		for (let offset = 0; offset < distinctCiphertext.length; offset += 100_000)
			await decryptor.push(distinctCiphertext.subarray(offset, offset + 100_000));
		expect(Buffer.compare(await decryptor.finish(), distinct)).toBe(0);
		await expectAllKeysReleased();
	});

	it('says what failed: the chunk that does not authenticate, a ciphertext too long or too short, or the digest', async () => {
		const flipped = ciphertext.slice();
		flipped[5 * ENCRYPTED_CHUNK_SIZE + 100] ^= 0x01;
		const cases: Array<[Uint8Array, unknown, string]> = [
			[flipped, meta, 'attachment: chunk 5 does not authenticate'],
			[Buffer.concat([ciphertext, new Uint8Array(1)]), meta, 'attachment: the ciphertext is longer than the meta size allows'],
			[ciphertext.subarray(0, 100_000), meta, `attachment: the ciphertext is 100000 bytes, expected ${ciphertext.length}`],
			[ciphertext, { ...meta, digest: distinctMeta.digest }, 'attachment: the plaintext digest differs from the meta']
		];
		for (const [bytes, faultyMeta, message] of cases) {
			const { decryptor } = await decrypt(bytes, faultyMeta);
			await expect(decryptor.finish()).rejects.toMatchObject({ code: 'DECRYPT_FAILED', message });
		}
		await expectAllKeysReleased();
	});

	it('once finished, refuses a push and a second finish, and a late abort wipes nothing it delivered', async () => {
		const decryptor = new ParallelAttachmentDecryptor(pool, meta);
		await decryptor.push(ciphertext);
		const delivered = await decryptor.finish();
		const finishedAlready = { code: 'DECRYPT_FAILED', message: 'the attachment pipeline has finished' };
		await expect(decryptor.push(new Uint8Array(1))).rejects.toMatchObject(finishedAlready);
		await expect(decryptor.finish()).rejects.toMatchObject(finishedAlready);
		decryptor.abort();
		expect(Buffer.compare(delivered, plaintext)).toBe(0);
		await expectAllKeysReleased();
	});

	it('an abort says why, and a second one keeps the first reason', async () => {
		const decryptor = new ParallelAttachmentDecryptor(pool, meta);
		const first = decryptor.abort();
		expect(first.message).toBe('attachment: aborted');
		expect(first.code).toBe('DECRYPT_FAILED');
		expect(decryptor.abort('the page gave up')).toBe(first);
		await expect(decryptor.finish()).rejects.toBe(first);
		await expectAllKeysReleased();
	});
});

describe('the parallel chunk pipeline, its workers answering when the test says', () => {
	it('hands each worker at most two jobs of four chunks, and a push returns once its chunks are handed out', async () => {
		const workers = heldPool(1);
		const decryptor = new ParallelAttachmentDecryptor(workers.pool, distinctMeta);
		let pushed = false;
		const push = decryptor.push(distinctCiphertext).then(() => (pushed = true));
		await settle();
		expect(workers.heldJobs()).toEqual([
			[0, 1, 2, 3],
			[4, 5, 6, 7]
		]);
		expect(pushed).toBe(false);
		// The second job back first: it is hashed after the first, so its buffer is not free yet and no job goes out.
		workers.answer(1);
		await settle();
		expect(workers.heldJobs()).toEqual([[0, 1, 2, 3]]);
		expect(pushed).toBe(false);
		workers.answer(0);
		await push;
		expect(workers.heldJobs()).toEqual([[8, 9, 10, 11], [12]]);
		const finished = decryptor.finish();
		workers.answer(1);
		workers.answer(0);
		expect(Buffer.compare(await finished, distinct)).toBe(0);
		// The plaintext left in the job buffers is wiped once it is delivered.
		expect(workers.returnedBuffers.every(isWiped)).toBe(true);
		expect(await workers.pool.status()).toEqual([0]);
	});

	it('a worker that stops while a push waits for it fails that push, and nothing decrypted is kept', async () => {
		const workers = heldPool(1);
		const decryptor = new ParallelAttachmentDecryptor(workers.pool, distinctMeta);
		const push = decryptor.push(distinctCiphertext);
		await settle();
		workers.answer(0);
		await settle();
		expect(workers.heldJobs()).toEqual([
			[4, 5, 6, 7],
			[8, 9, 10, 11]
		]);
		workers.workers[0].failed('killed');
		await expect(push).rejects.toMatchObject({ code: 'DECRYPT_FAILED', message: 'attachment: a chunk worker stopped: killed' });
		expect((decryptor as unknown as { plaintext: Uint8Array }).plaintext.every((byte) => byte === 0)).toBe(true);
		expect(workers.returnedBuffers.every(isWiped)).toBe(true);
	});

	it('wipes its copy of the file key once the workers have theirs, and the plaintext of a job it was assembling when stopped', async () => {
		const workers = heldPool(1);
		new ParallelAttachmentDecryptor(workers.pool, distinctMeta).abort();
		expect(workers.openedKeys).toHaveLength(1);
		expect(workers.openedKeys[0]).toEqual(new Uint8Array(32));

		const encryptor = new ParallelAttachmentEncryptor(workers.pool, { attachmentId, size });
		await encryptor.push(distinct.subarray(0, 4 * CHUNK_SIZE));
		workers.answer(0);
		// The buffer of the first job came back: the next job is assembled in it.
		await encryptor.push(distinct.subarray(4 * CHUNK_SIZE, 5 * CHUNK_SIZE + 10));
		const reused = new Uint8Array(workers.returnedBuffers[0]);
		expect(Buffer.compare(reused.subarray(0, CHUNK_SIZE), distinct.subarray(4 * CHUNK_SIZE, 5 * CHUNK_SIZE))).toBe(0);
		encryptor.abort();
		expect(reused.every((byte) => byte === 0)).toBe(true);
		expect(encryptor.ciphertext.every((byte) => byte === 0)).toBe(true);
		expect(await workers.pool.status()).toEqual([0]);
	});
});
