/**
 * A chunk worker in the browser: the crypto worker's own script started again by the crypto worker
 * (never by the page) under the name `CHUNK_WORKER_NAME`, running `ChunkWorkerState` on libsodium's WASM.
 * One script for both roles means one copy of libsodium to fetch (docs/crypto-worker.md, "Parallel
 * chunks"). It holds F only between a session's open and close.
 */
import { initCrypto } from '../../crypto/sodium';
import { ChunkWorkerState } from './chunk-worker';
import type { ToChunkWorker } from './protocol';

/** The name the crypto worker gives the chunk workers it starts from its own script. */
export const CHUNK_WORKER_NAME = 'inbox-chunks';

/** Serves the chunk worker's messages in `scope`, in the order they came. */
export function serveChunkWorker(scope: DedicatedWorkerGlobalScope): void {
	const ready = initCrypto();
	const state = new ChunkWorkerState();
	scope.addEventListener('message', async (event: MessageEvent<ToChunkWorker>) => {
		// Every message waits for the same promise, so they are handled in the order they came.
		await ready;
		const reply = state.handle(event.data);
		if (reply) scope.postMessage(reply, reply.kind === 'job' ? [reply.buffer] : []);
	});
}
