/**
 * The two database backends for one test suite (`describe.each(BACKENDS)`): fresh, migrated PGlite
 * databases started from a cached template (a new PGlite cluster takes seconds to create), and fresh
 * databases in a throwaway PostgreSQL cluster of the test file.
 */
import { afterAll, beforeAll } from 'vitest';
import { openDatabase, type Database } from '../../src/lib/server/db/database';
import { openPglite } from '../../src/lib/server/db/pglite';
import { pgliteTemplate } from './pglite-template';
import { startPostgresCluster, type PostgresCluster } from './postgres';

export { pgliteTemplate, seedPgliteDataDir } from './pglite-template';

const ALL_BACKENDS = ['PGlite', 'PostgreSQL'] as const;
export type Backend = (typeof ALL_BACKENDS)[number];
/**
 * Every backend, or only those named in `INBOX_TEST_BACKENDS` (comma-separated): the mutation run
 * (docs/mutation-testing.md) tests the modules above the database on PGlite alone.
 */
export const BACKENDS: readonly Backend[] = process.env.INBOX_TEST_BACKENDS
	? ALL_BACKENDS.filter((backend) => process.env.INBOX_TEST_BACKENDS!.split(',').includes(backend))
	: ALL_BACKENDS;

export interface DatabaseHarness {
	/** A fresh, migrated, empty database of the backend. */
	open(): Promise<Database>;
	/** The file's PostgreSQL cluster (PostgreSQL backend only). */
	cluster(): PostgresCluster;
	/** Where the server of this backend should keep its data: `DATABASE_URL` for PostgreSQL. */
	databaseUrl(): Promise<string | null>;
}

/** Registers beforeAll/afterAll for `backend` in the current describe block. */
export function useDatabases(backend: Backend): DatabaseHarness {
	let cluster: PostgresCluster | undefined;
	const opened: Database[] = [];
	beforeAll(async () => {
		if (backend === 'PostgreSQL') cluster = await startPostgresCluster();
		else await pgliteTemplate();
	}, 120_000);
	afterAll(async () => {
		await Promise.all(opened.map((database) => database.close().catch(() => {})));
		await cluster?.destroy();
	}, 60_000);
	return {
		async open() {
			const database =
				backend === 'PGlite'
					? await openPglite('memory://', { loadDataDir: await pgliteTemplate() })
					: await openDatabase({ databaseUrl: await cluster!.createDatabase(), dataDir: '' });
			opened.push(database);
			return database;
		},
		cluster() {
			if (!cluster) throw new Error('no PostgreSQL cluster in a PGlite suite');
			return cluster;
		},
		async databaseUrl() {
			return backend === 'PostgreSQL' ? cluster!.createDatabase() : null;
		}
	};
}

/** Resolves once a session of PostgreSQL `db` waits for a lock (another transaction holds it); fails after `timeoutMs`. */
export async function someoneWaitsForALock(db: Database, timeoutMs = 5_000): Promise<void> {
	for (let waited = 0; ; waited += 20) {
		const [row] = await db.query<{ n: number }>(
			`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
		);
		if (row.n > 0) return;
		if (waited > timeoutMs) throw new Error(`no session waited for a lock within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}
