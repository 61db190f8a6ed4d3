/**
 * Persistence behind one interface with two real backends (DESIGN "persistence"): PGlite, embedded
 * PostgreSQL in WASM with its files under `DATA_DIR/pglite`, when `DATABASE_URL` is unset, and PostgreSQL
 * through `pg` when it is set. One SQL dialect, the same versioned migrations, LISTEN/NOTIFY on both.
 */
import { join } from 'node:path';
import { migrate } from './migrate';

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
	close(): Promise<void>;
}

export interface DatabaseOptions {
	/** PostgreSQL when set. */
	databaseUrl: string | null;
	/** PGlite keeps its files in `<dataDir>/pglite`; `memory://` for a throwaway database. */
	dataDir: string;
}

/** Opens the configured backend and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
	const database = options.databaseUrl
		? await (await import('./postgres')).openPostgres(options.databaseUrl)
		: await (await import('./pglite')).openPglite(options.dataDir === 'memory://' ? 'memory://' : join(options.dataDir, 'pglite'));
	try {
		await migrate(database);
	} catch (error) {
		await database.close().catch(() => {});
		throw error;
	}
	return database;
}
