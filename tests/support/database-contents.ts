/**
 * Everything a stack's database holds, as text to search: every row of every table on PostgreSQL, every
 * byte of the data directory (tables, WAL) on PGlite, which the running inbox holds open. For tests
 * that the database holds no plaintext.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../../src/lib/server/db/database';
import type { Stack } from '../../src/cli/stack/stack';

function filesUnder(directory: string): string[] {
	return readdirSync(directory).flatMap((name) => {
		const path = join(directory, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

export async function databaseContents(stack: Stack): Promise<string> {
	if (stack.databaseUrl === null) {
		return filesUnder(join(stack.dataDir, 'pglite'))
			.map((file) => readFileSync(file).toString('latin1'))
			.join('\n');
	}
	const db = await openDatabase({ databaseUrl: stack.databaseUrl, dataDir: '' });
	try {
		const tables = await db.query<{ table_name: string }>(
			"select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'"
		);
		const parts: string[] = [];
		for (const { table_name } of tables) {
			const rows = await db.query<{ row: string }>(`select t::text as row from "${table_name}" t`);
			parts.push(...rows.map((row) => row.row));
		}
		return parts.join('\n');
	} finally {
		await db.close();
	}
}
