/**
 * The PGlite database in a worker thread: PostgreSQL's WASM runs beside the HTTP thread instead of in it,
 * so acknowledging webhooks and answering the API are not delayed by queries. The worker owns the PGlite
 * instance; this module speaks to it by messages (queries, transactions, LISTEN, dump, its memory).
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Runs in the worker (CommonJS, evaluated from this text): opens PGlite from its resolved path and serves
 * the messages of `PgliteWorker`. Transactions stay open until the main thread commits or rolls back.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pathToFileURL } = require('node:url');
const { getHeapStatistics } = require('node:v8');
const transactions = new Map();
const listeners = new Map();
let db;
let nextTransaction = 1;

function failure(error) {
	const out = { message: String((error && error.message) || error) };
	for (const key of ['code', 'severity', 'detail', 'constraint', 'table']) if (error && error[key] !== undefined) out[key] = error[key];
	return out;
}

function target(message) {
	if (message.tx === undefined) return db;
	const open = transactions.get(message.tx);
	if (!open) throw new Error('the transaction is no longer open');
	return open.tx;
}

async function handle(message) {
	switch (message.op) {
		case 'open': {
			const { PGlite } = await import(pathToFileURL(workerData.pglitePath).href);
			const loadDataDir = message.loadDataDir ? new Blob([message.loadDataDir]) : undefined;
			const startParams = [...PGlite.defaultStartParams, ...message.settings.flatMap((setting) => ['-c', setting])];
			db = await PGlite.create({ dataDir: message.dataDir, loadDataDir, startParams });
			return null;
		}
		case 'query':
			return (await target(message).query(message.sql, message.params)).rows;
		case 'exec':
			await target(message).exec(message.sql);
			return null;
		case 'begin': {
			const id = nextTransaction++;
			await new Promise((opened, failed) => {
				db.transaction(
					(tx) =>
						new Promise((finish, abort) => {
							transactions.set(id, { tx, finish, abort });
							opened();
						})
				).then(
					() => transactions.get(id)?.settled(null),
					(error) => transactions.get(id)?.settled(error)
				);
				setTimeout(() => { if (!transactions.has(id)) failed(new Error('the transaction did not start')); }, 60000).unref();
			});
			return id;
		}
		case 'commit':
		case 'rollback': {
			const open = transactions.get(message.tx);
			if (!open) throw new Error('the transaction is no longer open');
			const outcome = new Promise((resolve) => { open.settled = resolve; });
			if (message.op === 'commit') open.finish();
			else open.abort(new Error('rolled back'));
			const error = await outcome;
			transactions.delete(message.tx);
			if (error && message.op === 'commit') throw error;
			return null;
		}
		case 'listen': {
			if (!listeners.has(message.channel)) {
				listeners.set(message.channel, await db.listen(message.channel, (payload) => parentPort.postMessage({ notify: message.channel, payload })));
			}
			return null;
		}
		case 'unlisten': {
			const stop = listeners.get(message.channel);
			listeners.delete(message.channel);
			if (stop) await stop();
			return null;
		}
		case 'dump': {
			const blob = await db.dumpDataDir('none');
			return new Uint8Array(await blob.arrayBuffer());
		}
		case 'memory':
			// PostgreSQL's WASM linear memory (it grows and is never given back) and this thread's own JS heap
			return { wasmBytes: db && db.mod && db.mod.HEAPU8 ? db.mod.HEAPU8.byteLength : 0, workerHeapBytes: getHeapStatistics().total_heap_size };
		case 'close':
			if (db && !db.closed) await db.close();
			return null;
		default:
			throw new Error('unknown operation ' + message.op);
	}
}

parentPort.on('message', (message) => {
	handle(message).then(
		(result) => parentPort.postMessage({ id: message.id, result }),
		(error) => parentPort.postMessage({ id: message.id, error: failure(error) })
	);
});
`;

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/** An error of the worker's database, with PostgreSQL's fields (`code`: SQLSTATE) kept. */
export class PgliteError extends Error {
	override readonly name = 'PgliteError';
	code?: string;
	severity?: string;
	detail?: string;
	constraint?: string;
}

export class PgliteWorker {
	private readonly worker: Worker;
	private readonly pending = new Map<number, Pending>();
	private readonly listeners = new Map<string, Set<(payload: string) => void>>();
	private nextId = 1;
	private dead: Error | undefined;

	constructor() {
		const pglitePath = createRequire(import.meta.url).resolve('@electric-sql/pglite');
		this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { pglitePath } });
		this.worker.on(
			'message',
			(message: { id?: number; result?: unknown; error?: Record<string, string>; notify?: string; payload?: string }) => {
				if (message.notify !== undefined) {
					for (const listener of this.listeners.get(message.notify) ?? []) listener(message.payload ?? '');
					return;
				}
				const waiting = this.pending.get(message.id!);
				this.pending.delete(message.id!);
				if (!waiting) return;
				if (message.error) waiting.reject(Object.assign(new PgliteError(message.error.message), message.error));
				else waiting.resolve(message.result);
			}
		);
		const fail = (error: Error) => {
			this.dead ??= error;
			for (const waiting of this.pending.values()) waiting.reject(error);
			this.pending.clear();
		};
		this.worker.on('error', fail);
		this.worker.on('exit', () => fail(new PgliteError('the database worker stopped; the database is closed')));
	}

	call<T>(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
		if (this.dead) return Promise.reject(this.dead);
		const id = this.nextId++;
		return new Promise<T>((resolve, reject) => {
			this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
			this.worker.postMessage({ ...message, id }, transfer);
		});
	}

	async listen(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>> {
		let set = this.listeners.get(channel);
		if (!set) {
			set = new Set();
			this.listeners.set(channel, set);
			await this.call({ op: 'listen', channel });
		}
		set.add(listener);
		return async () => {
			set.delete(listener);
			if (set.size === 0 && this.listeners.get(channel) === set) {
				this.listeners.delete(channel);
				await this.call({ op: 'unlisten', channel }).catch(() => {});
			}
		};
	}

	async terminate(): Promise<void> {
		await this.worker.terminate();
	}
}
