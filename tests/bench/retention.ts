/**
 * `npm run bench:retention`: pruning a million expired webhook events while webhooks keep arriving
 * (docs/operations.md "Retention"). In one run, on a throwaway PostgreSQL cluster: the receiver's store
 * of one event (its statement, at 200/s) idle, then while the batched prune runs, then while one
 * unbatched delete of the same million rows runs (the reference: how pruning was done before); the
 * prune's duration and rows/s, and each p99 as a ratio of the idle one.
 */
import { openDatabase, type Database } from '../../src/lib/server/db/database';
import { pruneWebhookEvents, storeWebhookEvents, WEBHOOK_RETENTION_MS } from '../../src/lib/server/db/webhook-events';
import { startPostgresCluster } from '../support/postgres';
import { percentile } from './steady-load';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RATE = 200;
const IDLE_SECONDS = 5;
const now = new Date('2026-11-25T12:00:00Z');

let stored = 0;

/** Stores one new event every 1/RATE s until `until` resolves; returns each store's latency in ms, sorted. */
async function receiver(db: Database, until: Promise<unknown>): Promise<number[]> {
	const latencies: number[] = [];
	let done = false;
	void until.finally(() => (done = true));
	const interval = 1000 / RATE;
	let next = performance.now();
	while (!done) {
		const started = performance.now();
		const id = `evt_bench_${++stored}`;
		await storeWebhookEvents(
			db,
			[{ eventId: id, idInBody: true, eventType: 'message.created', deliveryId: null, attempt: null, rawBody: `{"id":"${id}"}` }],
			now
		);
		latencies.push(performance.now() - started);
		next += interval;
		const wait = next - performance.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
	}
	return latencies.sort((a, b) => a - b);
}

/** A million processed events older than the retention. */
async function fill(db: Database): Promise<void> {
	const old = new Date(now.getTime() - WEBHOOK_RETENTION_MS - 3600_000);
	await db.query(
		`insert into webhook_events (event_id, event_type, raw_body, state, received_at, processed_at, next_attempt_at)
		 select 'evt_old_' || n, 'message.created', '{"id":"evt_old_' || n || '"}', 'processed', $1, $1, $1 from generate_series(1, $2) as n`,
		[old, ROWS]
	);
	await db.exec('analyze webhook_events');
}

async function main(): Promise<void> {
	const cluster = await startPostgresCluster();
	const db = await openDatabase({ databaseUrl: await cluster.createDatabase(), dataDir: '' });
	try {
		await fill(db);
		const idle = await receiver(db, new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000)));

		let started = performance.now();
		const batched = pruneWebhookEvents(db, now).then(() => performance.now() - started);
		const [duringBatched, batchedMs] = await Promise.all([receiver(db, batched), batched]);
		const left = (await db.query<{ n: number }>(`select count(*)::int as n from webhook_events where event_id like 'evt_old_%'`))[0].n;

		await fill(db);
		started = performance.now();
		const unbatched = db
			.query(`delete from webhook_events where state <> 'pending' and processed_at < $1`, [new Date(now.getTime() - WEBHOOK_RETENTION_MS)])
			.then(() => performance.now() - started);
		const [duringUnbatched, unbatchedMs] = await Promise.all([receiver(db, unbatched), unbatched]);

		const p99 = (latencies: number[]) => percentile(latencies, 0.99);
		const row = (label: string, latencies: number[]) =>
			`  ${label.padEnd(40)} p50 ${percentile(latencies, 0.5).toFixed(1).padStart(6)} ms   p99 ${p99(latencies).toFixed(1).padStart(7)} ms   max ${latencies.at(-1)!.toFixed(1).padStart(7)} ms   ×${(p99(latencies) / p99(idle)).toFixed(2)} idle p99`;
		console.log(`bench:retention — ${ROWS.toLocaleString('en')} expired webhook events, the receiver storing ${RATE}/s (PostgreSQL)`);
		console.log(row('receiver, idle', idle));
		console.log(row('receiver, during the batched prune', duringBatched));
		console.log(row('receiver, during one unbatched delete', duringUnbatched));
		console.log(
			`  batched prune: ${(batchedMs / 1000).toFixed(1)} s, ${Math.round(ROWS / (batchedMs / 1000)).toLocaleString('en')} rows/s, ${left} left; unbatched delete: ${(unbatchedMs / 1000).toFixed(1)} s`
		);
		console.log(
			`  receiver p99 during pruning: ${(p99(duringBatched) / p99(idle)).toFixed(2)}× idle (unbatched: ${(p99(duringUnbatched) / p99(idle)).toFixed(2)}×)`
		);
	} finally {
		await db.close();
		await cluster.destroy();
	}
}

await main();
