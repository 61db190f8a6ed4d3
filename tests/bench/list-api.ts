/**
 * `npm run bench:list-api`: one page of the conversation list and the list's counts (docs/inbox-api.md §4
 * "Cost of a page", "Counts") over 1,000,000 messages in 10,000 conversations (tests/bench/seed-history.ts),
 * as an admin and as an agent whose key half of them are sealed for, first page and deep, on a throwaway
 * PostgreSQL and on PGlite; p50 and p99 of many runs, beside a `select 1` round trip of the same run. The
 * team has service targets in business hours, so the counts measure every open conversation's deadline.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Account } from '../../src/lib/server/db/accounts';
import { countConversationViews } from '../../src/lib/server/db/conversation-counts';
import { listConversationViews } from '../../src/lib/server/db/conversations';
import { openDatabase, type Database } from '../../src/lib/server/db/database';
import { updateSettings } from '../../src/lib/server/db/settings';
import { startPostgresCluster } from '../support/postgres';
import { YEAR_START, seedHistory } from './seed-history';

const CONVERSATIONS = 10_000;
const MESSAGES_EACH = 100;
const PAGE = 200;
const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const GOAL_MS = 30;
/** How deep the deep page starts: the conversations before it in the list's order. */
const DEPTH = 9_000;

const since = new Date(YEAR_START);
const admin: Account = {
	accountId: 'acc_bench_admin',
	username: 'bench-admin',
	displayName: 'Admin',
	role: 'admin',
	agentKeyId: null,
	agentPublicKey: null,
	createdAt: since,
	disabledAt: null,
	roleSince: since,
	roleGrantedBy: null
};
const agent: Account = {
	...admin,
	accountId: 'acc_bench_reader',
	username: 'bench-reader',
	displayName: 'Reader',
	role: 'agent',
	agentKeyId: 'agk_bench_reader',
	agentPublicKey: 'PK_bench_reader'
};

/** The admin and the agent, the agent in the latest roster, its key sealed for every other conversation. */
async function seedReaders(db: Database): Promise<void> {
	for (const account of [admin, agent]) {
		await db.query(
			`insert into accounts (account_id, username, display_name, role, password_hash, agent_key_id, agent_public_key, created_at, role_since)
			 values ($1, $2, $3, $4, 'x', $5, $6, $7, $7)`,
			[account.accountId, account.username, account.displayName, account.role, account.agentKeyId, account.agentPublicKey, since]
		);
	}
	await db.query(
		`insert into roster_versions (roster_version, issued_at, agents, signature, uploaded_at) values (1, $1, $2::jsonb, 'S', $3)`,
		[YEAR_START, JSON.stringify([{ agentKeyId: agent.agentKeyId, publicKey: agent.agentPublicKey }]), since]
	);
	await db.query(
		`insert into agent_wraps (conversation_id, agent_key_id, roster_version, wrap, received_at)
		 select 'conv_' || n, $1, 1, '{"v":1}'::jsonb, $2 from generate_series(2, $3::int, 2) n`,
		[agent.agentKeyId, since, CONVERSATIONS]
	);
}

/** Targets in business hours, a shorter one for a label: the counts' dearest work per open conversation. */
async function seedServiceTargets(db: Database): Promise<void> {
	const change = {
		businessHours: { timeZone: 'Europe/Berlin', week: [...Array(5).fill({ open: '09:00', close: '17:00' }), null, null], holidays: [] },
		serviceTargets: {
			firstResponseMinutes: 60,
			resolutionMinutes: 2880,
			businessHoursOnly: true,
			byLabel: { lbl_bench_1: { firstResponseMinutes: 15, resolutionMinutes: 480 } }
		}
	};
	await updateSettings(db, change, admin, since);
}

interface Timing {
	p50: number;
	p99: number;
}

async function percentiles(work: () => Promise<unknown>): Promise<Timing> {
	for (let warm = 0; warm < 5; warm++) await work();
	const times: number[] = [];
	for (let run = 0; run < RUNS; run++) {
		const started = performance.now();
		await work();
		times.push(performance.now() - started);
	}
	times.sort((a, b) => a - b);
	return { p50: times[Math.floor(RUNS / 2)], p99: times[Math.ceil(RUNS * 0.99) - 1] };
}

type Measured = Record<string, Timing> & { reference: Timing };

async function measure(db: Database, vacuum: () => Promise<unknown>): Promise<{ measured: Measured; seedMs: number }> {
	const seedMs = await seedHistory(db, CONVERSATIONS, MESSAGES_EACH);
	await seedReaders(db);
	await seedServiceTargets(db);
	await vacuum();
	const [deep] = await db.query<{ last_activity_at: Date; conversation_id: string }>(
		`select last_activity_at, conversation_id from conversations order by last_activity_at desc, conversation_id desc offset $1 limit 1`,
		[DEPTH - 1]
	);
	const after = { lastActivityAt: new Date(deep.last_activity_at).toISOString(), conversationId: deep.conversation_id };
	const measured = { reference: await percentiles(() => db.query('select 1')) } as Measured;
	for (const account of [admin, agent]) {
		const who = account.role;
		measured[`${who} first page`] = await percentiles(() => listConversationViews(db, account, { limit: PAGE }));
		measured[`${who} page ${DEPTH + 1}…`] = await percentiles(() => listConversationViews(db, account, { limit: PAGE, after }));
		measured[`${who} counts`] = await percentiles(() => countConversationViews(db, account, {}, new Date()));
	}
	return { measured, seedMs };
}

function report(store: string, { measured, seedMs }: { measured: Measured; seedMs: number }): void {
	console.log(`  ${store} (seeded in ${(seedMs / 1000).toFixed(1)} s)`);
	for (const [name, { p50, p99 }] of Object.entries(measured)) {
		const ratio = name === 'reference' ? '' : `   p99 ×${(p99 / measured.reference.p99).toFixed(0)} select 1`;
		console.log(`    ${name.padEnd(20)} p50 ${p50.toFixed(2).padStart(7)} ms   p99 ${p99.toFixed(2).padStart(7)} ms${ratio}`);
	}
}

/** The slowest p99 of the measurements whose name says `kind`. */
function worstP99(measured: Measured, kind: 'page' | 'counts'): number {
	return Math.max(
		...Object.entries(measured)
			.filter(([name]) => name.includes(kind))
			.map(([, timing]) => timing.p99)
	);
}

async function onPostgres(): Promise<{ measured: Measured; seedMs: number }> {
	const cluster = await startPostgresCluster();
	const url = await cluster.createDatabase();
	const postgres = await openDatabase({ databaseUrl: url, dataDir: '' });
	try {
		return await measure(postgres, async () => {
			const client = new pg.Client({ connectionString: url });
			await client.connect();
			await client.query('vacuum analyze').finally(() => client.end());
		});
	} finally {
		await postgres.close();
		await cluster.destroy();
	}
}

async function onPglite(): Promise<{ measured: Measured; seedMs: number }> {
	const directory = mkdtempSync(join(tmpdir(), 'inbox-bench-list-'));
	const pglite = await openDatabase({ databaseUrl: null, dataDir: directory });
	try {
		return await measure(pglite, () => pglite.exec('vacuum analyze'));
	} finally {
		await pglite.close();
		rmSync(directory, { recursive: true, force: true });
	}
}

async function main(): Promise<void> {
	const load = () =>
		loadavg()
			.map((value) => value.toFixed(2))
			.join(' ');
	console.log(
		`bench:list-api — a page of ${PAGE} and the counts over ${(CONVERSATIONS * MESSAGES_EACH).toLocaleString('en')} messages in ${CONVERSATIONS.toLocaleString('en')} conversations; ${RUNS} runs each; load ${load()}`
	);
	const postgres = await onPostgres();
	report('PostgreSQL', postgres);
	const pglite = await onPglite();
	report('PGlite', pglite);
	console.log(`  load at the end ${load()}; goal: one page p99 < ${GOAL_MS} ms on each store`);
	const pages = [worstP99(postgres.measured, 'page'), worstP99(pglite.measured, 'page')];
	const counts = [worstP99(postgres.measured, 'counts'), worstP99(pglite.measured, 'counts')];
	console.log(
		`list page at ${(CONVERSATIONS * MESSAGES_EACH).toString()} messages: p99 ${pages[0].toFixed(1)} ms PostgreSQL, ${pages[1].toFixed(1)} ms PGlite; counts p99 ${counts[0].toFixed(1)} ms PostgreSQL, ${counts[1].toFixed(1)} ms PGlite`
	);
	if (pages.some((p99) => p99 >= GOAL_MS)) process.exitCode = 1;
}

await main();
