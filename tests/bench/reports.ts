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

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const MESSAGES_EACH = 10;
const AGENTS = 20;
const RUNS = 5;
const BUDGET_MS = 500;
const YEAR_START = '2025-12-01T00:00:00Z';
const RANGE = { from: '2026-08-01', to: '2026-10-30', timeZone: 'Europe/Berlin' };

/** The team: 20 agents and 8 labels ($1 the year's start). */
const TEAM = [
	`insert into accounts (account_id, username, display_name, role, password_hash, created_at, role_since)
	 select 'acc_bench_' || n, 'agent' || n, 'Agent ' || n, 'agent', 'x', $1::timestamptz, $1::timestamptz from generate_series(1, ${AGENTS}) n`,
	`insert into labels (label_id, name, color, created_at) select 'lbl_bench_' || n, 'label ' || n, 'gray', $1::timestamptz from generate_series(1, 8) n`
];

/** The conversations numbered [$1, $2) (of $4, one every ~5 minutes of the year from $3). */
const CHUNK_CONVERSATIONS = `generate_series($1::int, $2::int - 1) n join conversations c on c.conversation_id = 'conv_' || n`;

/**
 * A year of conversations: five customer messages each answered by the assignee (an envelope of 272
 * random-looking bytes, as a short message has), nine in ten resolved, one in ten of those reopened by
 * the customer and resolved again, a label on one in three. Seeded in chunks: each statement stays
 * within the store's statement timeout.
 */
const CHUNK = [
	`insert into conversations (conversation_id, status, created_at, last_activity_at, updated_at, team_state, assignee_id)
	 select 'conv_' || n, 'active', t, t, t, case when n % 10 = 0 then 'open' else 'resolved' end, 'acc_bench_' || (n % ${AGENTS} + 1)
	 from generate_series($1::int, $2::int - 1) n, lateral (select $3::timestamptz + (n::float8 / $4::int) * interval '365 days' as t) c`,
	`insert into conversation_messages (message_id, conversation_id, seq, sender_type, content_type, encryption, attachment, created_at)
	 select 'msg_' || n || '_' || j, c.conversation_id, j + 1, case when j % 2 = 0 then 'user' else 'company' end, 'text',
		jsonb_build_object('v', 1, 'scheme', 'sc1', 'keyVersion', 1, 'clientMessageId', 'cm_' || n || '_' || j,
			'nonce', substr(repeat(md5(n::text), 2), 1, 32), 'ciphertext', repeat(md5(n::text || j::text), 11)),
		null, c.created_at + j * (n % 7 + 1) * interval '13 minutes'
	 from ${CHUNK_CONVERSATIONS}, generate_series(0, ${MESSAGES_EACH - 1}) j`,
	`insert into message_authors (conversation_id, client_message_id, account_id, author_name, created_at)
	 select c.conversation_id, 'cm_' || n || '_' || j, c.assignee_id, 'Agent', c.created_at + j * (n % 7 + 1) * interval '13 minutes'
	 from ${CHUNK_CONVERSATIONS}, generate_series(1, ${MESSAGES_EACH - 1}, 2) j`,
	`insert into conversation_activity (conversation_id, kind, actor_account_id, actor_name, details, created_at)
	 select c.conversation_id, l.kind, case when l.kind = 'reopened' then null else c.assignee_id end,
		case when l.kind = 'reopened' then null else 'Agent' end, '{}', c.created_at + l.after
	 from ${CHUNK_CONVERSATIONS} cross join lateral (values ('assigned', interval '10 minutes'), ('resolved', interval '3 hours'),
		('reopened', interval '30 hours'), ('resolved', interval '50 hours')) l (kind, after)
	 where (c.team_state = 'resolved' or l.kind = 'assigned') and (l.after < interval '30 hours' or n % 100 < 10)`,
	`insert into conversation_labels (conversation_id, label_id, added_at)
	 select c.conversation_id, 'lbl_bench_' || (n % 8 + 1), c.created_at from ${CHUNK_CONVERSATIONS} where n % 3 = 0`
];

const CHUNK_SIZE = 10_000;

async function seed(db: Database): Promise<number> {
	const started = performance.now();
	const start = new Date(YEAR_START);
	for (const sql of TEAM) await db.query(sql, [start]);
	for (let low = 1; low <= CONVERSATIONS; low += CHUNK_SIZE) {
		const high = Math.min(low + CHUNK_SIZE, CONVERSATIONS + 1);
		for (const sql of CHUNK) await db.query(sql, sql.includes('$4') ? [low, high, start, CONVERSATIONS] : [low, high]);
	}
	return performance.now() - started;
}

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

/** The median of `runs` timed calls after one untimed. */
async function timed(work: () => Promise<unknown>, runs: number): Promise<number> {
	await work();
	const times: number[] = [];
	for (let run = 0; run < runs; run++) {
		const started = performance.now();
		await work();
		times.push(performance.now() - started);
	}
	return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
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
	const seedMs = await seed(db);
	const upgradeMs = await upgrade(db);
	await vacuum();
	const report = await buildTeamReport(db, RANGE, { agentId: null });
	const reportMs = await timed(() => buildTeamReport(db, RANGE, { agentId: null }), runs);
	const referenceMs = await timed(
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
