/**
 * The chunk workers of the browser (docs/crypto-worker.md, "Parallel chunks"): module Workers started
 * by the crypto worker itself from its own script, so F passes only between our workers, never through
 * the page, and libsodium is fetched once for all of them. Every worker script that starts them serves
 * the chunk role when its name is `CHUNK_WORKER_NAME` (entry.ts; the harness's conformance worker).
 */
import { CHUNK_WORKER_NAME } from './chunk-worker-entry';
import { ChunkWorkerPool } from './pool';

declare const self: DedicatedWorkerGlobalScope;

/**
 * One chunk worker per core beside the crypto worker, which hashes; at least one, at most four: past
 * four, the digest (sequential, about twice as fast as decryption) is the limit and more workers only
 * cost memory (`npm run bench:crypto` and `bench:browser` print the scaling).
 */
export function chunkWorkerCount(hardwareConcurrency: number): number {
	const cores = Number.isInteger(hardwareConcurrency) && hardwareConcurrency > 0 ? hardwareConcurrency : 1;
	return Math.min(4, Math.max(1, cores - 1));
}

export function browserChunkWorkerPool(size: number): ChunkWorkerPool {
	return new ChunkWorkerPool((events) => {
		const worker = new Worker(self.location.href, { type: 'module', name: CHUNK_WORKER_NAME });
		worker.addEventListener('message', (event) => events.message(event.data));
		worker.addEventListener('error', (event) => {
			event.preventDefault();
			events.failed(event.message || 'its script could not be loaded');
		});
		worker.addEventListener('messageerror', () => events.failed('a message could not be read'));
		return {
			post: (message, transfer = []) => worker.postMessage(message, transfer),
			terminate: () => worker.terminate()
		};
	}, size);
}
