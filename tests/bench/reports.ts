/**
 * `npm run bench:reports`: the team report of 90 days by agent (docs/reports.md "Cost"), over a year of
 * 1,000,000 messages in 100,000 conversations of 20 agents, seeded by generate_series in a few
 * statements. Timed on a throwaway PostgreSQL (it must answer within 500 ms) and on PGlite beside it;
 * each as a ratio of the reference measured in the same run on the same database: counting the
 * range's messages, the least any report of the range reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { join } from 'node:path';
import { openDatabase, type Database, type Queryable } from '../../src/lib/server/db/database';
import { migrate } from '../../src/lib/server/db/migrate';
import { buildTeamReport } from '../../src/lib/server/reports/report';
import { startPostgresCluster } from '../support/postgres';
import { seedHistory, timedMedian } from './seed-history';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const MESSAGES_EACH = 10;
const RUNS = 5;
const BUDGET_MS = 500;
const RANGE = { from: '2026-08-01', to: '2026-10-30', timeZone: 'Europe/Berlin' };

/**
 * The seed writes messages and authors the way an inbox before migration 30 stored them; each
 * conversation's first response is then filled as that migration fills it on an upgrade (timed: what
 * the upgrade of such an inbox takes).
 */
async function upgrade(db: Database): Promise<number> {
	await db.exec('drop table conversation_response_facts; delete from schema_migrations where version = 30');
	const started = performance.now();
	await migrate(db);
	return performance.now() - started;
}

/**
 * With `BENCH_EXPLAIN=1`: the plan of the report's statement as PostgreSQL ran it, `explain (analyze,
 * buffers)` of every statement the report runs in its transaction.
 */
async function explainReport(db: Database): Promise<string[]> {
	const plans: string[] = [];
	const explaining = (tx: Queryable): Queryable => ({
		...tx,
		async query<R extends object>(sql: string, params?: readonly unknown[]) {
			if (!sql.startsWith('set ')) {
				const plan = await tx.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${sql}`, params);
				plans.push(...plan.map((row) => row['QUERY PLAN']));
			}
			return tx.query<R>(sql, params);
		}
	});
	await buildTeamReport({ ...db, transaction: (work) => db.transaction((tx) => work(explaining(tx))) }, RANGE, { agentId: null });
	return plans;
}

interface Measured {
	seedMs: number;
	upgradeMs: number;
	reportMs: number;
	referenceMs: number;
	agents: number;
	messagesIn: number;
}

/**
 * `vacuum` marks the seeded pages all-visible, as autovacuum does for a table that stopped growing, so
 * the indexes answer alone; on PostgreSQL it runs outside the store's statement timeout.
 */
async function measure(db: Database, runs: number, vacuum: () => Promise<unknown>): Promise<Measured> {
	const seedMs = await seedHistory(db, CONVERSATIONS, MESSAGES_EACH);
	const upgradeMs = await upgrade(db);
	await vacuum();
	const report = await buildTeamReport(db, RANGE, { agentId: null });
	const reportMs = await timedMedian(() => buildTeamReport(db, RANGE, { agentId: null }), runs);
	const referenceMs = await timedMedian(
		() =>
			db.query(
				`select count(*) from conversation_messages where created_at >= ($1::timestamp at time zone $3) and created_at < ($2::timestamp at time zone $3)`,
				[RANGE.from, RANGE.to, RANGE.timeZone]
			),
		runs
	);
	return { seedMs, upgradeMs, reportMs, referenceMs, agents: report.byAgent.length, messagesIn: report.overall.messagesIn };
}

function line(label: string, measured: Measured): string {
	return `  ${label.padEnd(12)} report ${measured.reportMs.toFixed(1).padStart(8)} ms   reference ${measured.referenceMs.toFixed(1).padStart(7)} ms   ×${(measured.reportMs / measured.referenceMs).toFixed(2)} reference   seeded in ${(measured.seedMs / 1000).toFixed(1)} s, migration 30 in ${(measured.upgradeMs / 1000).toFixed(1)} s`;
}

async function main(): Promise<void> {
	const cluster = await startPostgresCluster();
	const url = await cluster.createDatabase();
	const postgres = await openDatabase({ databaseUrl: url, dataDir: '' });
	let onPostgres: Measured;
	try {
		onPostgres = await measure(postgres, RUNS, async () => {
			const client = new pg.Client({ connectionString: url });
			await client.connect();
			await client.query('vacuum analyze').finally(() => client.end());
		});
		if (process.env.BENCH_EXPLAIN) console.log((await explainReport(postgres)).join('\n'));
	} finally {
		await postgres.close();
		await cluster.destroy();
	}
	const directory = mkdtempSync(join(tmpdir(), 'inbox-bench-reports-'));
	const pglite = await openDatabase({ databaseUrl: null, dataDir: directory });
	let onPglite: Measured;
	try {
		onPglite = await measure(pglite, 1, () => pglite.exec('vacuum analyze'));
	} finally {
		await pglite.close();
		rmSync(directory, { recursive: true, force: true });
	}
	const messages = CONVERSATIONS * MESSAGES_EACH;
	console.log(
		`bench:reports — the 90-day report by agent (${RANGE.from} to ${RANGE.to}, ${RANGE.timeZone}) over ${messages.toLocaleString('en')} messages in ${CONVERSATIONS.toLocaleString('en')} conversations of a year`
	);
	console.log(
		`  ${onPostgres.messagesIn.toLocaleString('en')} customer messages in the range, ${onPostgres.agents} agents; median of ${RUNS} runs on PostgreSQL, 1 on PGlite`
	);
	console.log(line('PostgreSQL', onPostgres));
	console.log(line('PGlite', onPglite));
	console.log(
		`  PostgreSQL ${onPostgres.reportMs < BUDGET_MS ? 'within' : 'OVER'} its ${BUDGET_MS} ms budget; PGlite ×${(onPglite.reportMs / onPostgres.reportMs).toFixed(1)} PostgreSQL`
	);
	if (onPostgres.reportMs >= BUDGET_MS) process.exitCode = 1;
}

await main();
