/**
 * A migrated, empty PGlite database as a tarball, cached on disk per schema and PGlite version (creating
 * a PGlite cluster takes seconds; loading this takes well under one), and a data directory seeded from it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from '../../src/lib/server/db/migrate';
import { MIGRATIONS } from '../../src/lib/server/db/migrations';
import { openPglite } from '../../src/lib/server/db/pglite';

const CACHE_DIR = join(process.cwd(), 'node_modules', '.cache', 'inbox-tests');

function templateKey(): string {
	const hash = createHash('sha256');
	// the migrations this process applies, not the file on disk, which may have changed since it was loaded
	hash.update(JSON.stringify(MIGRATIONS));
	hash.update(readFileSync(join(process.cwd(), 'node_modules/@electric-sql/pglite/package.json')));
	return hash.digest('hex').slice(0, 16);
}

let template: Promise<Blob> | undefined;

/** A tarball of an empty, migrated PGlite database, cached on disk per schema and PGlite version. */
export function pgliteTemplate(): Promise<Blob> {
	template ??= (async () => {
		const file = join(CACHE_DIR, `pglite-${templateKey()}.tar`);
		if (existsSync(file)) return new Blob([readFileSync(file)]);
		const database = await openPglite('memory://');
		await migrate(database);
		const dump = await database.dump();
		await database.close();
		mkdirSync(CACHE_DIR, { recursive: true });
		const partial = `${file}.${process.pid}`;
		writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
		renameSync(partial, file);
		return dump;
	})();
	return template;
}

/** Writes a migrated PGlite database into `<dataDir>/pglite`, as the server would find it after its first start. */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
	const database = await openPglite(join(dataDir, 'pglite'), { loadDataDir: await pgliteTemplate() });
	await database.close();
}
