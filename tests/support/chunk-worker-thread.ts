/**
 * A chunk worker in a `worker_threads` thread, for the Node tests and benchmarks of the attachment
 * pipeline: the same `ChunkWorkerState` the browser's chunk workers run.
 */
import { parentPort } from 'node:worker_threads';
import { initCrypto } from '../../src/lib/crypto/sodium';
import { ChunkWorkerState } from '../../src/lib/crypto-worker/pipeline/chunk-worker';
import type { ToChunkWorker } from '../../src/lib/crypto-worker/pipeline/protocol';

const port = parentPort!;
const ready = initCrypto();
const state = new ChunkWorkerState();

port.on('message', async (message: ToChunkWorker) => {
	await ready;
	const reply = state.handle(message);
	if (reply) port.postMessage(reply, reply.kind === 'job' ? [reply.buffer] : []);
});
