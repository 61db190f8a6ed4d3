/**
 * `npm run admin -- <command>`: accounts of the inbox from the command line (docs/inbox-api.md §8), for
 * the first admin before anyone can log in. Works on the configured database (DATABASE_URL, or PGlite
 * under DATA_DIR, which must not be open in a running inbox at the same time). The commands are in
 * admin-commands.ts.
 */
import { resolve } from 'node:path';
import { ContractError } from '../lib/errors';
import { openDatabase } from '../lib/server/db/database';
import { COMMANDS, parse, run, USAGE, UsageError } from './admin-commands';

async function main(): Promise<void> {
	const { command, options } = parse(process.argv.slice(2));
	if (!COMMANDS.has(command)) throw new UsageError(`unknown command ${command}\n${USAGE}`);
	const database = await openDatabase({
		databaseUrl: process.env.DATABASE_URL || null,
		dataDir: resolve(process.env.DATA_DIR || './data')
	});
	try {
		console.log(await run(database, command, options));
	} finally {
		await database.close();
	}
}

main().catch((error) => {
	if (error instanceof UsageError || error instanceof ContractError) console.error(error.message);
	else console.error(`npm run admin failed: ${(error as Error)?.message ?? error}`);
	process.exit(1);
});
