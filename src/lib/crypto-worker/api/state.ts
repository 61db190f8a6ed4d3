/**
 * What the parts of the crypto worker's API share (docs/crypto-worker.md): the unlocked keys ("handles,
 * not keys"), the selected account's key store, the attachment references and running decryptions, the
 * search index, and the chunk workers ("Parallel chunks"), started at the first attachment. Every call
 * runs once libsodium is loaded; `lock()` wipes what every part holds.
 */
import { initCrypto } from '../../crypto/sodium';
import { fail } from '../../errors';
import { KeyStore } from '../../keystore/keystore';
import { AttachmentDownloads } from '../attachment-download';
import { AttachmentRefs } from '../attachment-refs';
import { browserChunkWorkerPool, chunkWorkerCount } from '../pipeline/browser-workers';
import type { ChunkWorkerPool } from '../pipeline/pool';
import { SearchKeeper } from '../search';
import { KeySession } from '../session';

export interface WorkerApiOptions {
	/** Starts `size` chunk workers for attachments (Web Workers unless given: Node tests pass threads). */
	startChunkWorkers?: (size: number) => ChunkWorkerPool;
}

export class WorkerState {
	#store = new KeyStore();
	readonly #ready = initCrypto();
	readonly #startChunkWorkers: (size: number) => ChunkWorkerPool;
	#chunkWorkerPool: ChunkWorkerPool | undefined;
	#chunkWorkerCount: number | undefined;
	readonly session = new KeySession();
	readonly attachmentRefs = new AttachmentRefs();
	readonly downloads = new AttachmentDownloads(() => this.chunkWorkers());
	readonly search = new SearchKeeper(() => this.#store.searchIndex);

	constructor(options: WorkerApiOptions = {}) {
		this.#startChunkWorkers = options.startChunkWorkers ?? browserChunkWorkerPool;
	}

	/** The key store of the selected account. */
	get store(): KeyStore {
		return this.#store;
	}

	/** Runs `operation` once libsodium is loaded; every method of the API goes through here. */
	async run<T>(operation: () => T | Promise<T>): Promise<T> {
		await this.#ready;
		return operation();
	}

	/** Started at the first attachment, then kept for the life of the worker. */
	chunkWorkers(): ChunkWorkerPool {
		return (this.#chunkWorkerPool ??= this.#startChunkWorkers(this.#chunkWorkerCount ?? chunkWorkerCount(navigator.hardwareConcurrency)));
	}

	/** How many chunk workers to start, instead of one per core beside this worker; refused once they run. */
	useChunkWorkerCount(count: number): void {
		if (this.#chunkWorkerPool) fail('INVALID_INPUT', 'the chunk workers are already running');
		this.#chunkWorkerCount = count;
	}

	/** Wipes every secret, conversation key, running attachment decryption and reference key; locks the search index. */
	async lock(): Promise<void> {
		this.session.lock();
		this.downloads.abortAll();
		this.attachmentRefs.forget();
		await this.search.lock();
	}

	/** Locks everything, closes the key store and opens the one named `name`. */
	async useStore(name: string): Promise<void> {
		await this.lock();
		await this.#store.close();
		this.#store = new KeyStore(name);
	}
}
