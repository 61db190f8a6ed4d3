/**
 * The attachment pipeline's chunk workers as `worker_threads` threads (the browser uses Web Workers),
 * so Vitest and `npm run bench:crypto` drive the same pool and pipeline in Node.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ChunkWorkerPool, type StartChunkWorker } from '../../src/lib/crypto-worker/pipeline/pool';

// a path, not `new URL(…, import.meta.url)`: in the page's specs Vite turns that into an address of its server
const ENTRY = join(import.meta.dirname, 'chunk-worker-thread.mjs');

/** The threads of a pool, so that a test can kill one. */
export type NodeChunkWorkers = ChunkWorkerPool & { threads: Worker[] };

export function nodeChunkWorkerPool(size: number): NodeChunkWorkers {
	const threads: Worker[] = [];
	const start: StartChunkWorker = (events) => {
		const worker = new Worker(ENTRY);
		threads.push(worker);
		worker.on('message', events.message);
		worker.on('error', (error) => events.failed(error.message));
		worker.on('exit', (code) => events.failed(`exited with code ${code}`));
		return {
			post: (message, transfer) => worker.postMessage(message, transfer as ArrayBuffer[]),
			terminate: () => {
				threads.splice(threads.indexOf(worker), 1);
				void worker.terminate();
			}
		};
	};
	return Object.assign(new ChunkWorkerPool(start, size), { threads });
}
