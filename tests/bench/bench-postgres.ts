/**
 * The PostgreSQL store `npm run bench:server` measures (docs/operations.md "Throughput"): a new database
 * on the server of `DATABASE_URL` when it is set (dropped at the end, so the operator's data is left
 * alone), otherwise a throwaway cluster like the tests' (tests/support/postgres.ts) but durable, as
 * production runs it, with pg_stat_statements loaded and WAL flushes timed (`track_wal_io_timing`, a
 * diagnostic setting of the benchmark alone) for the trace.
 */
import pg from 'pg';
import { startPostgresCluster } from '../support/postgres';

export interface BenchPostgres {
	/** The database the inbox is given as `DATABASE_URL`. */
	url: string;
	/** Where it runs, for the output. */
	origin: string;
	/** Its files are on this machine, in the temporary directory (the throwaway cluster). */
	local: boolean;
	stop(): Promise<void>;
}

async function run(connectionString: string, sql: string): Promise<void> {
	const client = new pg.Client({ connectionString });
	await client.connect();
	try {
		await client.query(sql);
	} finally {
		await client.end();
	}
}

export async function benchPostgres(): Promise<BenchPostgres> {
	const given = process.env.DATABASE_URL;
	if (given) {
		const name = `inbox_bench_${process.pid}`;
		await run(given, `create database ${name}`);
		const url = new URL(given);
		url.pathname = `/${name}`;
		return {
			url: url.href,
			origin: `database ${name}, made for this run on ${url.host} (DATABASE_URL)`,
			local: false,
			stop: () => run(given, `drop database ${name} with (force)`)
		};
	}
	const cluster = await startPostgresCluster({
		durable: true,
		settings: { shared_preload_libraries: 'pg_stat_statements', track_wal_io_timing: 'on' }
	});
	return {
		url: await cluster.createDatabase(),
		origin: 'a throwaway cluster on this machine (DATABASE_URL unset)',
		local: true,
		stop: () => cluster.destroy()
	};
}
