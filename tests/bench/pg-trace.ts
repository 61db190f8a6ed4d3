/**
 * Where the PostgreSQL store's time goes in `npm run bench:server` (docs/operations.md "Throughput"): the
 * server's durability settings, its counters around each run (commits, WAL flushes and the time they
 * took, checkpoints, the webhook events still waiting), the statements pg_stat_statements counted
 * between a reset and a read, and what the inbox's backends were doing, sampled from pg_stat_activity.
 */
import pg from 'pg';

export interface StatementCost {
	calls: number;
	totalMs: number;
	meanMs: number;
	/** The statement's text on one line, shortened. */
	query: string;
}

const SETTINGS = [
	'server_version',
	'fsync',
	'synchronous_commit',
	'commit_delay',
	'wal_sync_method',
	'shared_buffers',
	'track_wal_io_timing'
];

/** The server's counters at one moment; `minus` gives what happened between two. */
export interface Counters {
	/** Transactions committed in the inbox's database. */
	commits: number;
	/** WAL flushes to the disk (fsync or fdatasync) by the whole server, and the milliseconds they took (null without track_wal_io_timing). */
	walSyncs: number;
	walSyncMs: number | null;
	checkpoints: number;
	/** Webhook events stored and not yet processed (not a counter: its value at the second moment). */
	backlog: number;
}

export function minus(after: Counters, before: Counters): Counters {
	return {
		commits: after.commits - before.commits,
		walSyncs: after.walSyncs - before.walSyncs,
		walSyncMs: after.walSyncMs === null || before.walSyncMs === null ? null : after.walSyncMs - before.walSyncMs,
		checkpoints: after.checkpoints - before.checkpoints,
		backlog: after.backlog
	};
}

export class PostgresTrace {
	private constructor(
		private readonly client: pg.Client,
		/** False when the server does not load pg_stat_statements (`shared_preload_libraries`). */
		readonly counting: boolean
	) {}

	static async open(url: string): Promise<PostgresTrace> {
		const client = new pg.Client({ connectionString: url, application_name: 'bench:trace' });
		await client.connect();
		const counting = await client.query('create extension if not exists pg_stat_statements; select 1 from pg_stat_statements limit 1').then(
			() => true,
			() => false
		);
		return new PostgresTrace(client, counting);
	}

	/** `fsync on, synchronous_commit on, …` as the server reports them. */
	async settings(): Promise<string> {
		const values: string[] = [];
		for (const name of SETTINGS) values.push(`${name} ${(await this.client.query(`show ${name}`)).rows[0][name]}`);
		return values.join(', ');
	}

	async resetStatements(): Promise<void> {
		if (this.counting) await this.client.query('select pg_stat_statements_reset()');
	}

	/** The statements of the inbox's database that took the most time since the reset, most first. */
	async topStatements(count: number): Promise<StatementCost[]> {
		if (!this.counting) return [];
		const { rows } = await this.client.query<{ calls: string; total: number; mean: number; query: string }>(
			`select s.calls, s.total_exec_time as total, s.mean_exec_time as mean, s.query from pg_stat_statements s
			 join pg_database d on d.oid = s.dbid
			 where d.datname = current_database() and s.query not like '%pg_stat_%'
			 order by s.total_exec_time desc limit $1`,
			[count]
		);
		return rows.map((row) => ({
			calls: Number(row.calls),
			totalMs: row.total,
			meanMs: row.mean,
			query: row.query.replace(/\s+/g, ' ').trim().slice(0, 110)
		}));
	}

	async counters(): Promise<Counters> {
		const { rows } = await this.client.query<Counters>(
			`select (select xact_commit from pg_stat_database where datname = current_database())::float8 as commits,
				wal_sync::float8 as "walSyncs", case when current_setting('track_wal_io_timing')::bool then wal_sync_time end as "walSyncMs",
				(select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::float8 as checkpoints,
				(select count(*) from webhook_events where state = 'pending')::float8 as backlog
			 from pg_stat_wal`
		);
		return rows[0];
	}

	/**
	 * Samples, every `everyMs` until `until` settles, what each other backend of the database is doing and
	 * in which statement (the last one, when idle in a transaction): `active: IO:WALSync [insert into
	 * webhook_events …]`, `idle in transaction: Client:ClientRead […]` (waiting on the inbox), … Idle
	 * connections are not counted. Returns each one's share of the samples, most first.
	 */
	async sampleWaits(until: Promise<unknown>, everyMs = 10): Promise<{ samples: number; shares: [string, number][] }> {
		let done = false;
		void until.finally(() => (done = true));
		const counts = new Map<string, number>();
		let samples = 0;
		while (!done) {
			const { rows } = await this.client.query<{ what: string }>(
				`select state || ': ' || coalesce(wait_event_type || ':' || wait_event, 'CPU') || ' [' || left(regexp_replace(query, '\\s+', ' ', 'g'), 28) || '…]' as what
				 from pg_stat_activity
				 where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`
			);
			for (const row of rows) counts.set(row.what, (counts.get(row.what) ?? 0) + 1);
			samples += rows.length;
			await new Promise((resolve) => setTimeout(resolve, everyMs));
		}
		const shares = [...counts].map(([what, count]): [string, number] => [what, count / Math.max(samples, 1)]).sort((a, b) => b[1] - a[1]);
		return { samples, shares };
	}

	close(): Promise<void> {
		return this.client.end();
	}
}
