/**
 * Persistence behind one interface with two real backends (DESIGN "persistence"): PGlite, embedded
 * PostgreSQL in WASM with its files under `DATA_DIR/pglite`, when `DATABASE_URL` is unset, and PostgreSQL
 * through `pg` when it is set. One SQL dialect, the same versioned migrations, LISTEN/NOTIFY on both.
 */
import { join } from 'node:path';
import { migrate } from './migrate';
import type { Database } from './queryable';

export type { Database, Queryable, Row } from './queryable';

export interface DatabaseOptions {
	/** PostgreSQL when set. */
	databaseUrl: string | null;
	/** PGlite keeps its files in `<dataDir>/pglite`; `memory://` for a throwaway database. */
	dataDir: string;
	/** PostgreSQL only: how long a session may stay idle inside a transaction (postgres.ts). */
	idleInTransactionTimeoutMs?: number;
}

/** Opens the configured backend and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
	const database = options.databaseUrl
		? await (
				await import('./postgres')
			).openPostgres(options.databaseUrl, { idleInTransactionTimeoutMs: options.idleInTransactionTimeoutMs })
		: await (await import('./pglite')).openPglite(options.dataDir === 'memory://' ? 'memory://' : join(options.dataDir, 'pglite'));
	try {
		await migrate(database);
	} catch (error) {
		await database.close().catch(() => {});
		throw error;
	}
	return database;
}
