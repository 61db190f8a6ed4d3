/**
 * Applies the numbered migrations that a database lacks, all in one transaction under an advisory lock,
 * so that several server processes starting at once apply each migration exactly once (or none at all).
 * The lock is taken before anything is created, the bookkeeping table included: two processes creating
 * it at once on an empty database would otherwise collide on PostgreSQL's catalog.
 */
import type { Database } from './queryable';
import { MIGRATIONS, type Migration } from './migrations';

/** Any constant shared by every process of the inbox: the advisory lock of the schema. */
const MIGRATION_LOCK = 7_270_501;

export class SchemaTooNewError extends Error {
	override readonly name = 'SchemaTooNewError';
}

export async function migrate(database: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
	const applied: number[] = [];
	const newest = migrations.at(-1)?.version ?? 0;
	await database.transaction(async (tx) => {
		await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
		await tx.query(`create table if not exists schema_migrations (
			version integer primary key,
			name text not null,
			applied_at timestamptz not null
		)`);
		const done = new Set((await tx.query<{ version: number }>('select version from schema_migrations')).map((row) => row.version));
		const unknown = [...done].filter((version) => version > newest);
		if (unknown.length) {
			throw new SchemaTooNewError(
				`the database schema is at version ${Math.max(...unknown)}, newer than this inbox knows (${newest}); upgrade the inbox`
			);
		}
		for (const migration of migrations) {
			if (done.has(migration.version)) continue;
			await tx.exec(migration.sql);
			await tx.query('insert into schema_migrations (version, name, applied_at) values ($1, $2, $3)', [
				migration.version,
				migration.name,
				new Date()
			]);
			applied.push(migration.version);
		}
	});
	return applied;
}
