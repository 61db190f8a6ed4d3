/**
 * A chunk worker in the browser: a module Worker started by the crypto worker (never by the page),
 * running `ChunkWorkerState` on libsodium's WASM. It holds F only between a session's open and close.
 */
import { initCrypto } from '../../crypto/sodium';
import { ChunkWorkerState } from './chunk-worker';
import type { ToChunkWorker } from './protocol';

declare const self: DedicatedWorkerGlobalScope;

const ready = initCrypto();
const state = new ChunkWorkerState();

self.addEventListener('message', async (event: MessageEvent<ToChunkWorker>) => {
	// Every message waits for the same promise, so they are handled in the order they came.
	await ready;
	const reply = state.handle(event.data);
	if (reply) self.postMessage(reply, reply.kind === 'job' ? [reply.buffer] : []);
});
