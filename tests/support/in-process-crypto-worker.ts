/**
 * The page's crypto worker in this process, for the rune stores' specs (docs/crypto-worker.md): with
 * `Worker` stubbed by InProcessWorker, the page's own CryptoWorkerClient talks through comlink and a
 * MessageChannel to the worker's own API, exposed as the worker entry exposes it in the browser; the
 * attachments' chunk workers are `worker_threads` threads. Only the thread is the test's: terminating a
 * worker drops its API with every key it held, as a browser's does.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { expose, type Endpoint } from 'comlink';
import { createWorkerApi } from '../../src/lib/crypto-worker/api';
import { installTransferHandlers } from '../../src/lib/crypto-worker/transfer';
import { nodeChunkWorkerPool, type NodeChunkWorkers } from './node-chunk-workers';

type Listener = (event: MessageEvent) => void;

/** Install it with `vi.stubGlobal('Worker', InProcessWorker)`. */
export class InProcessWorker {
	/** Every worker the page started, oldest first. */
	static readonly started: InProcessWorker[] = [];
	#terminated = false;
	readonly #port: MessagePort;
	#chunkWorkers: NodeChunkWorkers | undefined;

	constructor() {
		installTransferHandlers();
		const { port1, port2 } = new MessageChannel();
		const api = createWorkerApi({ startChunkWorkers: (size) => (this.#chunkWorkers = nodeChunkWorkerPool(size)) });
		expose(api, port2 as unknown as Endpoint);
		this.#port = port1;
		InProcessWorker.started.push(this);
	}

	/** The page terminated it: its keys are gone with it. */
	get terminated(): boolean {
		return this.#terminated;
	}

	postMessage(message: unknown, transfer: Transferable[] = []): void {
		this.#port.postMessage(message, transfer as never);
	}

	addEventListener(type: string, listener: Listener): void {
		if (type !== 'message') return; // a worker in this process never fails to load
		this.#port.addEventListener('message', listener as never);
		this.#port.start();
	}

	removeEventListener(type: string, listener: Listener): void {
		if (type === 'message') this.#port.removeEventListener('message', listener as never);
	}

	terminate(): void {
		this.#terminated = true;
		this.#port.close();
		this.#chunkWorkers?.terminate();
	}

	/** The workers still running, terminated (after a spec file, so their threads do not keep Vitest waiting). */
	static terminateAll(): void {
		for (const worker of InProcessWorker.started) if (!worker.terminated) worker.terminate();
	}
}
