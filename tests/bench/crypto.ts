/**
 * `npm run bench:crypto`: the crypto core against native libsodium (sodium-native, used only here),
 * on the same data in the same run: streamed decryption + digest of a 25 MiB attachment (400
 * chunks) single-threaded and through the chunk worker pipeline with 1, 2 and 4 `worker_threads`
 * workers (the browser's design), 1,000 message envelopes (also against libsodium.js called
 * directly), and sealed-box opens; with the peak memory growth of the streamed paths relative to
 * the file size, and the machine's cores and load. Run with `--no-liftoff` so that libsodium's WASM is measured
 * as optimized code from the first round, as it runs once V8 has tiered it up, not V8's warm-up.
 */
import sodiumNative from 'sodium-native';
import { availableParallelism, loadavg } from 'node:os';
import {
	AttachmentDecryptor,
	attachmentChunkAd,
	b64uDecode,
	buildAttachmentMeta,
	CHUNK_SIZE,
	decryptMessage,
	ENCRYPTED_CHUNK_SIZE,
	encryptAttachment,
	encryptMessage,
	generateX25519KeyPair,
	initCrypto,
	openConversationKey,
	sealConversationKey,
	type AttachmentMeta
} from '../../src/lib/crypto/index';
import { chunkWorkerCount } from '../../src/lib/crypto-worker/pipeline/browser-workers';
import { ParallelAttachmentDecryptor } from '../../src/lib/crypto-worker/pipeline/parallel-attachment';
import type { ChunkWorkerPool } from '../../src/lib/crypto-worker/pipeline/pool';
import { nodeChunkWorkerPool } from '../support/node-chunk-workers';
import { sodium } from '../../src/lib/crypto/sodium';

const FILE_SIZE = 400 * CHUNK_SIZE; // 25 MiB
const NETWORK_PIECE = 64 * 1024; // what a fetch body typically hands over at a time
const ENVELOPES = 1000;
/** Rounds of the envelopes against libsodium.js: a round takes a few milliseconds, so more of them steady the median. */
const ENVELOPE_ROUNDS = 21;
const SEAL_OPENS = 2000;
const ROUNDS = 7;
/** The pipeline's chunk worker counts measured, beside the one the browser would take on this machine. */
const PIPELINE_WORKERS = [1, 2, 4];

const gc = (globalThis as { gc?: () => void }).gc;

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Median milliseconds of `core` and `native`, measured alternately after a warm-up, so that load
 * from elsewhere on the machine falls on both sides alike.
 */
function compare(rounds: number, core: () => void, native: () => void): { coreMs: number; nativeMs: number } {
	core();
	native();
	const coreSamples: number[] = [];
	const nativeSamples: number[] = [];
	for (let i = 0; i < rounds; i++) {
		for (const [run, samples] of [
			[core, coreSamples],
			[native, nativeSamples]
		] as const) {
			const start = performance.now();
			run();
			samples.push(performance.now() - start);
		}
	}
	return { coreMs: median(coreSamples), nativeMs: median(nativeSamples) };
}

/**
 * Median milliseconds of each contender, each measured in turn round after round after one warm-up
 * each, so that load from elsewhere on the machine falls on all of them alike.
 */
async function compareAll(rounds: number, contenders: Array<[string, () => unknown]>): Promise<Map<string, number>> {
	const samples = new Map<string, number[]>();
	for (const [name, run] of contenders) {
		await run();
		samples.set(name, []);
	}
	for (let i = 0; i < rounds; i++) {
		for (const [name, run] of contenders) {
			const start = performance.now();
			await run();
			samples.get(name)!.push(performance.now() - start);
		}
	}
	return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

/** The browser's path in Node: the parallel pipeline fed in network-sized pieces, each awaited as the page awaits the worker. */
async function pipelineStreamedDecrypt(pool: ChunkWorkerPool, ciphertext: Uint8Array, meta: AttachmentMeta, sampleMemory?: () => void) {
	const decryptor = new ParallelAttachmentDecryptor(pool, meta);
	for (let offset = 0; offset < ciphertext.length; offset += NETWORK_PIECE) {
		await decryptor.push(ciphertext.subarray(offset, offset + NETWORK_PIECE));
		sampleMemory?.();
	}
	return decryptor.finish();
}

function patternFile(size: number): Uint8Array {
	const bytes = new Uint8Array(size);
	for (let i = 0; i < size; i++) bytes[i] = (i * 31 + 7) & 255;
	return bytes;
}

function coreStreamedDecrypt(ciphertext: Uint8Array, meta: AttachmentMeta, sampleMemory?: () => void): Uint8Array {
	const decryptor = new AttachmentDecryptor(meta);
	for (let offset = 0; offset < ciphertext.length; offset += NETWORK_PIECE) {
		decryptor.push(ciphertext.subarray(offset, offset + NETWORK_PIECE));
		sampleMemory?.();
	}
	return decryptor.finish();
}

/** The same streamed work with native libsodium: decrypt each chunk, hash it, copy it out. */
function nativeStreamedDecrypt(ciphertext: Uint8Array, meta: AttachmentMeta): Uint8Array {
	const key = Buffer.from(b64uDecode(meta.key));
	const nonceBase = b64uDecode(meta.nonce);
	const chunks = Math.max(1, Math.ceil(meta.size / CHUNK_SIZE));
	const out = Buffer.alloc(meta.size);
	const plain = Buffer.alloc(CHUNK_SIZE);
	const nonce = Buffer.alloc(24);
	nonce.set(nonceBase.subarray(0, 16));
	const state = Buffer.alloc(sodiumNative.crypto_generichash_STATEBYTES);
	sodiumNative.crypto_generichash_init(state, null, 32);
	for (let i = 0; i < chunks; i++) {
		const start = i * ENCRYPTED_CHUNK_SIZE;
		const chunk = ciphertext.subarray(start, Math.min(start + ENCRYPTED_CHUNK_SIZE, ciphertext.length));
		nonce.writeBigUInt64BE(BigInt(i), 16);
		const ad = Buffer.from(attachmentChunkAd(meta.attachmentId, i, i === chunks - 1));
		const length = chunk.length - 16;
		sodiumNative.crypto_aead_xchacha20poly1305_ietf_decrypt(plain.subarray(0, length), null, chunk, ad, nonce, key);
		sodiumNative.crypto_generichash_update(state, plain.subarray(0, length));
		out.set(plain.subarray(0, length), i * CHUNK_SIZE);
	}
	const digest = Buffer.alloc(32);
	sodiumNative.crypto_generichash_final(state, digest);
	if (!digest.equals(Buffer.from(b64uDecode(meta.digest)))) throw new Error('native digest mismatch');
	return out;
}

/** Settles garbage from earlier work: V8 frees large backing stores after the collection itself. */
async function settle(): Promise<void> {
	for (let i = 0; i < 3; i++) {
		gc?.();
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/** Peak growth of this thread's heap and ArrayBuffers while `decrypt` runs, as a multiple of the file size. */
async function measurePeakGrowth(size: number, decrypt: (sampleMemory: () => void) => Promise<Uint8Array> | Uint8Array): Promise<number> {
	const used = () => {
		const memory = process.memoryUsage();
		return memory.heapUsed + memory.arrayBuffers;
	};
	await settle();
	const baseline = used();
	let peak = baseline;
	const plaintext = await decrypt(() => (peak = Math.max(peak, used())));
	peak = Math.max(peak, used());
	if (plaintext.length !== size) throw new Error('size mismatch');
	return (peak - baseline) / size;
}

const mbps = (bytes: number, ms: number) => bytes / 1e6 / (ms / 1000);
const row = (label: string, core: string, native: string, ratio: number) =>
	console.log(`${label.padEnd(60)} ${core.padStart(16)} ${native.padStart(16)} ${ratio.toFixed(2).padStart(8)}×`);

async function main(): Promise<void> {
	await initCrypto();
	if (!gc) console.log('(run with node --expose-gc for a steadier memory figure)');
	const flags = process.execArgv.filter((flag) => flag.startsWith('--') && flag !== '--import').join(' ');
	console.log(
		`Node ${process.version} (${flags}), ${FILE_SIZE / 2 ** 20} MiB attachment in ${NETWORK_PIECE / 1024} KiB pieces, median of ${ROUNDS} rounds\n`
	);
	console.log(`${'measure'.padEnd(60)} ${'core (WASM)'.padStart(16)} ${'native'.padStart(16)} ${'ratio'.padStart(9)}`);

	const attachmentId = 'att_benchmark0000001';
	const encryption = encryptAttachment(patternFile(FILE_SIZE), { attachmentId });
	const meta = buildAttachmentMeta({ attachmentId, name: 'bench.bin', mime: 'application/octet-stream', size: FILE_SIZE, encryption });
	const ciphertext = encryption.ciphertext;
	const growth = await measurePeakGrowth(FILE_SIZE, (sample) => coreStreamedDecrypt(ciphertext, meta, sample));
	const pools = new Map(PIPELINE_WORKERS.map((workers) => [workers, nodeChunkWorkerPool(workers)]));
	const browserWorkers = chunkWorkerCount(availableParallelism());
	pools.set(browserWorkers, pools.get(browserWorkers) ?? nodeChunkWorkerPool(browserWorkers));
	const pipelineGrowth = await measurePeakGrowth(FILE_SIZE, (sample) =>
		pipelineStreamedDecrypt(pools.get(browserWorkers)!, ciphertext, meta, sample)
	);
	const pipelineName = (workers: number) => `pipeline, ${workers} chunk worker${workers === 1 ? '' : 's'}`;
	const medians = await compareAll(ROUNDS, [
		['native', () => nativeStreamedDecrypt(ciphertext, meta)],
		['core, single thread', () => coreStreamedDecrypt(ciphertext, meta)],
		...PIPELINE_WORKERS.map((workers): [string, () => unknown] => [
			pipelineName(workers),
			() => pipelineStreamedDecrypt(pools.get(workers)!, ciphertext, meta)
		])
	]);
	const nativeMs = medians.get('native')!;
	for (const [name, milliseconds] of medians) {
		if (name === 'native') continue;
		row(
			`streamed decrypt + digest, ${name} (MB/s)`,
			mbps(FILE_SIZE, milliseconds).toFixed(0),
			mbps(FILE_SIZE, nativeMs).toFixed(0),
			nativeMs / milliseconds
		);
	}
	for (const pool of new Set(pools.values())) pool.terminate();
	// The summary follows the path the browser takes on a machine like this one.
	const attachmentRatio = nativeMs / medians.get(pipelineName(browserWorkers))!;

	const conversationKey = new Uint8Array(32).fill(5);
	const context = { conversationId: 'conv_bench', senderType: 'user' as const, keyVersion: 1, conversationKey };
	const envelopes = Array.from({ length: ENVELOPES }, (_, i) =>
		encryptMessage({ ...context, clientMessageId: `m_${i}`, text: `message ${i}` })
	);
	const decoded = envelopes.map((envelope) => ({
		nonce: Buffer.from(b64uDecode(envelope.nonce)),
		ciphertext: Buffer.from(b64uDecode(envelope.ciphertext)),
		ad: Buffer.from(`Service|v1|msg|conv_bench|user|${envelope.clientMessageId}|1`)
	}));
	const padded = Buffer.alloc(256);
	const nativeKey = Buffer.from(conversationKey);
	const coreEnvelopes = () => envelopes.forEach((envelope) => decryptMessage(envelope, context));
	const { coreMs: coreEnvelopesMs, nativeMs: nativeEnvelopesMs } = compare(ROUNDS, coreEnvelopes, () => {
		for (const item of decoded) {
			// native decrypts pre-decoded bytes and skips unpadding/UTF-8: a ceiling, not a twin
			sodiumNative.crypto_aead_xchacha20poly1305_ietf_decrypt(padded, null, item.ciphertext, item.ad, item.nonce, nativeKey);
		}
	});
	const perSecond = (count: number, ms: number) => ((count / ms) * 1000).toFixed(0);
	row(
		`${ENVELOPES} envelopes, 272-byte ciphertext (per s)`,
		perSecond(ENVELOPES, coreEnvelopesMs),
		perSecond(ENVELOPES, nativeEnvelopesMs),
		nativeEnvelopesMs / coreEnvelopesMs
	);
	// The same WASM called the way an application would without the core: libsodium.js on bytes decoded
	// beforehand, with the AD as a string; it neither unpads nor checks the UTF-8 either.
	const wasmDecoded = envelopes.map((envelope) => ({
		nonce: b64uDecode(envelope.nonce),
		ciphertext: b64uDecode(envelope.ciphertext),
		ad: `Service|v1|msg|conv_bench|user|${envelope.clientMessageId}|1`
	}));
	const libsodiumJs = sodium();
	const { coreMs: coreAgainstDirectMs, nativeMs: directEnvelopesMs } = compare(ENVELOPE_ROUNDS, coreEnvelopes, () => {
		for (const item of wasmDecoded) {
			libsodiumJs.crypto_aead_xchacha20poly1305_ietf_decrypt(null, item.ciphertext, item.ad, item.nonce, conversationKey);
		}
	});
	const directRatio = directEnvelopesMs / coreAgainstDirectMs;
	row(
		`${ENVELOPES} envelopes vs libsodium.js direct (per s)`,
		perSecond(ENVELOPES, coreAgainstDirectMs),
		perSecond(ENVELOPES, directEnvelopesMs),
		directRatio
	);
	console.log(`envelopes: ${directRatio.toFixed(2)}× libsodium.js direct (target ≥ 0.80×)`);

	const company = generateX25519KeyPair();
	const wraps = Array.from({ length: SEAL_OPENS }, (_, i) =>
		sealConversationKey({ conversationKey, conversationId: `conv_${i}`, keyVersion: 1, recipientPublicKey: company.publicKey })
	);
	const sealedBytes = wraps.map((wrap) => Buffer.from(b64uDecode(wrap.sealed)));
	const payload = Buffer.alloc(200);
	const [publicKey, secretKey] = [Buffer.from(company.publicKey), Buffer.from(company.secretKey)];
	const { coreMs: coreOpenMs, nativeMs: nativeOpenMs } = compare(
		3,
		() => wraps.forEach((wrap, i) => openConversationKey(wrap, `conv_${i}`, [company])),
		() => {
			for (const sealed of sealedBytes) {
				if (!sodiumNative.crypto_box_seal_open(payload.subarray(0, sealed.length - 48), sealed, publicKey, secretKey))
					throw new Error('open failed');
			}
		}
	);
	row('sealed-box opens (per s)', perSecond(SEAL_OPENS, coreOpenMs), perSecond(SEAL_OPENS, nativeOpenMs), nativeOpenMs / coreOpenMs);

	console.log(
		`\npeak memory growth while streaming the 25 MiB attachment: ${growth.toFixed(2)}× the file size single-threaded (target ≤ 1.10×), ` +
			`${pipelineGrowth.toFixed(2)}× through the pipeline (this thread; target ≤ 1.20×)`
	);
	console.log(
		`machine: ${availableParallelism()} cores, load average ${loadavg()
			.map((value) => value.toFixed(2))
			.join(' ')}; the browser would take ${browserWorkers} chunk worker${browserWorkers === 1 ? '' : 's'} here`
	);
	console.log(`streamed attachment path: ${attachmentRatio.toFixed(2)}× native (target ≥ 0.60×)`);
	const verdicts = [
		attachmentRatio >= 0.6 ? 'throughput target met' : 'THROUGHPUT TARGET MISSED',
		growth <= 1.1 && pipelineGrowth <= 1.2 ? 'memory target met' : 'MEMORY TARGET MISSED'
	];
	console.log(verdicts.join('; '));
}

await main();
