/**
 * The PGlite backend: PostgreSQL compiled to WASM, in a worker thread of this process, with its files in
 * one directory. A single connection, so statements run one after another; LISTEN/NOTIFY works within
 * the process.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { Database, EmbeddedDatabaseMemory, Queryable } from './queryable';
import { PgliteWorker } from './pglite-worker';
import { isProcessAlive } from '../node/process-alive';

/**
 * PGlite must never be opened by two processes at once (it would corrupt its files): `<directory>.lock`
 * holds the owner's pid; a lock whose process is gone (a crash) is taken over.
 */
async function lockDirectory(directory: string): Promise<() => Promise<void>> {
	const file = `${directory}.lock`;
	try {
		await writeFile(file, String(process.pid), { flag: 'wx' });
	} catch {
		const owner = Number((await readFile(file, 'utf8').catch(() => '')).trim());
		if (owner && owner !== process.pid && isProcessAlive(owner)) {
			throw new Error(
				`the database in ${directory} is in use by process ${owner} (an inbox server?); stop it first, or remove ${file} if that process is not the inbox`
			);
		}
		await writeFile(file, String(process.pid));
	}
	return async () => {
		if ((await readFile(file, 'utf8').catch(() => '')).trim() === String(process.pid)) await rm(file, { force: true });
	};
}

/**
 * PostgreSQL's buffer cache lives in PGlite's WASM memory, and a page of it becomes resident when first
 * used: at PostgreSQL's default of 128 MB the process's memory climbed for as long as the database grew
 * new pages to cache (docs/operations.md "Soak"). The files are on disk, in the kernel's cache as well;
 * 16 MB holds what the list and the webhooks read again and again, and is full early in a process's life.
 */
export const PGLITE_SETTINGS = ['shared_buffers=16MB'];

/**
 * Opens (creating when new) the database in `directory`, or in memory for `memory://`, in a worker
 * thread (pglite-worker.ts). `loadDataDir` starts a new database from a `dumpDataDir()` tarball.
 */
export async function openPglite(directory: string, options: { loadDataDir?: Blob } = {}): Promise<Database & { dump(): Promise<Blob> }> {
	let unlock = async () => {};
	if (directory !== 'memory://') {
		await mkdir(directory, { recursive: true, mode: 0o700 });
		unlock = await lockDirectory(directory);
	}
	const worker = new PgliteWorker();
	try {
		const template = options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined;
		await worker.call(
			{ op: 'open', dataDir: directory === 'memory://' ? undefined : directory, loadDataDir: template, settings: PGLITE_SETTINGS },
			template ? [template] : []
		);
	} catch (error) {
		await worker.terminate();
		await unlock();
		throw error;
	}
	// PGlite has no autovacuum, so its statistics stay as stale as the last ANALYZE (maintenance runs one
	// every few minutes): with them the planner took bitmap scans plus a sort over the whole webhook queue
	// for "the oldest 20 pending events". Plain index scans are right for every query this schema runs.
	await worker.call({ op: 'exec', sql: 'set enable_bitmapscan = off' });
	const queryable = (tx?: number): Queryable => ({
		query: <R extends object>(sql: string, params: readonly unknown[] = []) => worker.call<R[]>({ op: 'query', sql, params, tx }),
		exec: (sql: string) => worker.call<void>({ op: 'exec', sql, tx })
	});
	let closed = false;
	return {
		kind: 'pglite',
		...queryable(),
		async transaction(work) {
			const tx = await worker.call<number>({ op: 'begin' });
			let result;
			try {
				result = await work(queryable(tx));
			} catch (error) {
				await worker.call({ op: 'rollback', tx }).catch(() => {});
				throw error;
			}
			await worker.call({ op: 'commit', tx });
			return result;
		},
		// One connection serves the whole process.
		withConnection: (work) => work(queryable()),
		listen: (channel, onNotify) => worker.listen(channel, (payload) => onNotify(payload)),
		embeddedMemory: () => worker.call<EmbeddedDatabaseMemory>({ op: 'memory' }),
		async close() {
			if (closed) return;
			closed = true;
			await worker.call({ op: 'close' }).catch(() => {});
			await worker.terminate();
			await unlock();
		},
		dump: async () => new Blob([(await worker.call<Uint8Array>({ op: 'dump' })) as BlobPart])
	};
}
