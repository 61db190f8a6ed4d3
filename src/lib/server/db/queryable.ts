/**
 * The one interface of persistence (DESIGN "persistence"; docs/architecture.md, "The server"): what a
 * statement, a transaction and LISTEN look like, whichever backend (db/pglite.ts, db/postgres.ts)
 * answers. The backends and the migrations depend on it; db/database.ts opens one of them.
 */

export type Row = Record<string, unknown>;

export interface Queryable {
	/** Runs one statement with `$1…` parameters and returns its rows. */
	query<R extends object = Row>(sql: string, params?: readonly unknown[]): Promise<R[]>;
	/** Runs a script of several statements without parameters (migrations). */
	exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
	readonly kind: 'pglite' | 'postgres';
	/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
	transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
	/** Runs `work` on one connection of its own, outside a transaction (for session state such as an advisory lock). */
	withConnection<T>(work: (connection: Queryable) => Promise<T>): Promise<T>;
	/**
	 * Calls `onNotify` for every NOTIFY on `channel` (also those of other processes on PostgreSQL), and
	 * with `null` after a lost connection was re-established, since notifications may have been missed.
	 */
	listen(channel: string, onNotify: (payload: string | null) => void): Promise<() => Promise<void>>;
	/** The memory an embedded database holds in this process (PGlite only; PostgreSQL's is its server's). */
	embeddedMemory?(): Promise<EmbeddedDatabaseMemory>;
	close(): Promise<void>;
}

/** What the embedded database's worker thread holds (docs/operations.md "Metrics"). */
export interface EmbeddedDatabaseMemory {
	/** PostgreSQL's WASM linear memory: it grows with the database's working set and is never given back. */
	wasmBytes: number;
	/** The JavaScript heap of the worker thread that runs it, as V8 holds it (in use or not). */
	workerHeapBytes: number;
}
