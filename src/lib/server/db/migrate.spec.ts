import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresCluster, type PostgresCluster } from '$test-support/postgres';
import { migrate } from './migrate';
import { MIGRATIONS } from './migrations';
import { openPostgres } from './postgres';

describe('migrate on PostgreSQL', () => {
	let cluster: PostgresCluster;
	beforeAll(async () => {
		cluster = await startPostgresCluster();
	}, 120_000);
	afterAll(async () => {
		await cluster?.destroy();
	}, 60_000);

	it('20 processes migrating an empty database at once all succeed, and each migration is applied once', async () => {
		const url = await cluster.createDatabase();
		const processes = await Promise.all(Array.from({ length: 20 }, () => openPostgres(url)));
		try {
			const results = await Promise.allSettled(processes.map((database) => migrate(database)));
			expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
			const applied = results.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
			expect(applied.sort((a, b) => a - b)).toEqual(MIGRATIONS.map((migration) => migration.version));
			const rows = await processes[0].query<{ version: number }>('select version from schema_migrations order by version');
			expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
		} finally {
			await Promise.all(processes.map((database) => database.close()));
		}
	}, 60_000);
});
