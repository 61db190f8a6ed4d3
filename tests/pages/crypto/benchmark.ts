/**
 * The measurements of `npm run bench:browser` (docs/crypto-worker.md "Tests and benchmark"): a plain
 * download for the baseline, the worker's decryption throughput from memory with other counts of chunk
 * workers, and history pages timed round trip included, or the transport alone.
 */
import { createCryptoWorker, type CryptoWorkerClient, type HistoryItem } from '../../../src/lib/crypto-worker/client';
import { byteStream } from '../../support/byte-stream';
import { attempt } from './attempt';

/** Times `runs` calls of `operation`, each result then handed to `check` (outside the time). */
async function timed<T>(runs: number, operation: () => Promise<T>, check: (result: T) => void): Promise<number[]> {
	const timings: number[] = [];
	for (let run = 0; run < runs; run++) {
		const started = performance.now();
		const result = await operation();
		timings.push(performance.now() - started);
		check(result);
	}
	return timings;
}

export function benchmarkHelpers(client: CryptoWorkerClient) {
	let ciphertextInMemory: ArrayBuffer | undefined;
	const scalingWorkers = new Map<number, CryptoWorkerClient>();
	const workerWith = (chunkWorkers: number) => {
		let worker = scalingWorkers.get(chunkWorkers);
		if (!worker) scalingWorkers.set(chunkWorkers, (worker = createCryptoWorker({ chunkWorkers })));
		return worker;
	};

	return {
		/** A plain download of `url` into memory, for the benchmark's baseline. */
		async download(url: string) {
			const started = performance.now();
			const buffer = await (await fetch(url)).arrayBuffer();
			return { bytes: buffer.byteLength, milliseconds: performance.now() - started };
		},
		/** Downloads a ciphertext into page memory once, for `decryptFromMemory`. */
		async fetchIntoMemory(url: string) {
			ciphertextInMemory = await (await fetch(url)).arrayBuffer();
			return ciphertextInMemory.byteLength;
		},
		/**
		 * Decrypts the in-memory ciphertext served as a byte stream, as a fetch body is (the worker's
		 * throughput), by this page's worker or by one of its own with `chunkWorkers` chunk workers.
		 */
		async decryptFromMemory(meta: unknown, chunkWorkers?: number) {
			const stream = byteStream(new Uint8Array(ciphertextInMemory ?? new ArrayBuffer(0)));
			const worker = chunkWorkers === undefined ? client : workerWith(chunkWorkers);
			const started = performance.now();
			const { blob } = await worker.decryptAttachmentStream(stream, meta);
			return { size: blob.size, milliseconds: performance.now() - started };
		},
		/** Stops the workers `decryptFromMemory` started for other chunk worker counts. */
		stopScalingWorkers() {
			for (const worker of scalingWorkers.values()) worker.terminate();
			scalingWorkers.clear();
		},
		/** Times `runs` batch decryptions of a history page, round trip included; checks every item decrypted. */
		async timeHistory(conversationId: string, items: HistoryItem[], runs: number) {
			let failures = 0;
			const timings = await timed(
				runs,
				() => client.decryptHistory(conversationId, items),
				(results) => (failures += results.filter((result) => !result.ok).length)
			);
			return { timings, failures };
		},
		/** Times sending the same items to a conversation without an open key: the transport alone, refused before any decryption. */
		timeTransportOnly: (items: HistoryItem[], runs: number) =>
			timed(
				runs,
				() => attempt(() => client.decryptHistory('conv_transportOnly', items)),
				(outcome) => {
					if (outcome.ok || outcome.code !== 'CONVERSATION_KEY_NOT_OPEN') throw new Error('the transport-only batch should be refused');
				}
			)
	};
}
