/**
 * The webhook half of `npm run bench:server` (docs/operations.md "Throughput"): the real receiver
 * (production build, processing on) on each store, PGlite and PostgreSQL, and a bare node:http server
 * that only verifies the HMAC (the ceiling), alternated round by round at a steady offered load, then
 * without a rate limit. Each run starts once every process has finished what the previous one left it
 * (its queue processed); each figure stands with the load average at its start and the CPU its server
 * process spent per event. On PostgreSQL a trace says where the time went.
 */
import autocannon from 'autocannon';
import { loadavg } from 'node:os';
import { startProcess, waitForUrl, type RunningProcess } from '../../src/cli/stack/processes';
import { freePort } from '../../src/cli/stack/ports';
import { webhookSignature } from '../support/webhooks';
import { BENCH_WEBHOOK_SECRET, startBenchInbox } from './bench-inbox';
import { benchPostgres } from './bench-postgres';
import { startFlushProbe } from './flush-probe';
import { minus, PostgresTrace, type Counters } from './pg-trace';
import { cpuSeconds, settle } from './process-cpu';
import { percentile, steadyLoad, type PreparedRequest } from './steady-load';

export const OFFERED_RATE = Number(process.env.BENCH_RATE ?? 1000);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 15);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 32;
const TARGET_P99_MS = 50;

export interface LoadResult {
	perSecond: number;
	ok: number;
	errors: number;
	p50: number;
	p99: number;
	/** The one-minute load average when the run started. */
	load: number;
	/** CPU milliseconds the server's process spent per acknowledged event. */
	cpuMs: number;
	/** The disk's flushes during the run (PostgreSQL on this machine only): p99 and longest, ms. */
	flush?: { p99: number; max: number };
}

interface Target {
	name: string;
	url: string;
	pid: number;
}

/** The median steady run of each (the run with the median p99). */
export interface IngestResult {
	pglite: LoadResult;
	postgresql: LoadResult;
	ceiling: LoadResult;
}

let eventCounter = 0;

/** A signed `message.created` webhook of one customer message, as the service sends it (contract 6). */
export function messageCreatedRequest(secret: string, conversationId: string, messageId: string): PreparedRequest {
	const seq = ++eventCounter;
	const body = JSON.stringify({
		id: `evt_bench${process.pid}x${seq}`,
		type: 'message.created',
		createdAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
		data: {
			conversationId,
			messageId,
			seq,
			senderType: 'user',
			contentType: 'text',
			encryption: {
				v: 1,
				scheme: 'sc1',
				keyVersion: 1,
				clientMessageId: `usr_${seq}`,
				nonce: 'A'.repeat(32),
				ciphertext: 'B'.repeat(363)
			}
		}
	});
	return {
		method: 'POST',
		path: '/webhooks/service',
		headers: {
			'content-type': 'application/json',
			'x-service-signature': webhookSignature(secret, body),
			'x-service-event-id': `evt_h${seq}`
		},
		body
	};
}

/** The receiver's load: messages of fifty conversations the inbox learns of from the messages themselves. */
function webhookRequest(): PreparedRequest {
	const next = eventCounter + 1;
	return messageCreatedRequest(BENCH_WEBHOOK_SECRET, `conv_bench${next % 50}`, `msg_bench${process.pid}x${next}`);
}

/** Runs `work` against `target`, with the load average at its start and the target's CPU per acknowledged event. */
async function measured(target: Target, work: () => Promise<Omit<LoadResult, 'load' | 'cpuMs'>>): Promise<LoadResult> {
	const load = loadavg()[0];
	const cpuBefore = cpuSeconds(target.pid);
	const result = await work();
	return { ...result, load, cpuMs: ((cpuSeconds(target.pid) - cpuBefore) * 1000) / Math.max(result.ok, 1) };
}

/** Unthrottled: as many requests as the server answers, from CONNECTIONS connections (autocannon). */
function unthrottled(target: Target): Promise<LoadResult> {
	return measured(target, async () => {
		const result = await autocannon({
			url: target.url,
			connections: CONNECTIONS,
			duration: DURATION_S,
			requests: [{ setupRequest: (request) => ({ ...request, ...webhookRequest() }) }]
		});
		const ok = result['2xx'];
		const errors = result.non2xx + result.errors + result.timeouts;
		return { perSecond: ok / DURATION_S, ok, errors, p50: result.latency.p50, p99: result.latency.p99 };
	});
}

/** A steady offered load: `rate` requests per second leave at even intervals (tests/bench/steady-load.ts). */
function steady(target: Target, rate = OFFERED_RATE, seconds = DURATION_S): Promise<LoadResult> {
	// Signed before the run (a signature stays valid 300 s), so the generator spends its time sending.
	const prepared = Array.from({ length: Math.round(rate * seconds) }, webhookRequest);
	let next = 0;
	return measured(target, async () => {
		const result = await steadyLoad(target.url, rate, seconds, () => prepared[next++]);
		return {
			perSecond: result.ok / result.seconds,
			ok: result.ok,
			errors: result.failed,
			p50: percentile(result.latencies, 0.5),
			p99: percentile(result.latencies, 0.99)
		};
	});
}

/** The run with the median p99 (the same run's throughput goes with it). */
function median(results: LoadResult[]): LoadResult {
	return [...results].sort((a, b) => a.p99 - b.p99)[Math.floor(results.length / 2)];
}

function row(label: string, result: LoadResult): string {
	return `  ${label.padEnd(48)} ${result.perSecond.toFixed(0).padStart(6)} events/s   p50 ${result.p50.toFixed(1).padStart(6)} ms   p99 ${result.p99
		.toFixed(1)
		.padStart(
			6
		)} ms   CPU ${result.cpuMs.toFixed(3)} ms/event   (${result.ok} acknowledged, ${result.errors} failed; load ${result.load.toFixed(2)})`;
}

const met = (result: LoadResult) => result.perSecond >= OFFERED_RATE * 0.99 && result.p99 < TARGET_P99_MS && result.errors === 0;

function startCeiling(port: number): RunningProcess {
	return startProcess(
		'ceiling',
		process.execPath,
		['--import', 'tsx', 'tests/bench/hmac-ceiling.ts', String(port), BENCH_WEBHOOK_SECRET],
		{}
	);
}

function traceLines(runs: Counters[], events: number[], statements: Awaited<ReturnType<PostgresTrace['topStatements']>>): string[] {
	const perThousand = (value: number, index: number) => ((value * 1000) / Math.max(events[index], 1)).toFixed(0);
	const lines = [
		`  per steady run, per 1,000 events: ${runs.map((run, index) => `${perThousand(run.commits, index)} commits, ${perThousand(run.walSyncs, index)} WAL flushes${run.walSyncMs !== null && run.walSyncs ? ` (${(run.walSyncMs / run.walSyncs).toFixed(2)} ms each)` : ''}, ${run.checkpoints} checkpoints, ${run.backlog} events left to process`).join('; ')}`
	];
	if (!statements.length) return [...lines, '  (pg_stat_statements is not loaded on that server: no statement counts)'];
	lines.push('  statements by total time over the steady runs (pg_stat_statements):');
	for (const statement of statements)
		lines.push(
			`    ${String(statement.calls).padStart(7)} calls ${statement.totalMs.toFixed(0).padStart(7)} ms total ${statement.meanMs.toFixed(3).padStart(8)} ms mean   ${statement.query}`
		);
	return lines;
}

export async function ingestBench(): Promise<IngestResult> {
	// BENCH_PROCESSING=off measures receiving alone (processing is on, as in production, by default).
	const env = { WEBHOOK_PROCESSING: process.env.BENCH_PROCESSING ?? 'on' };
	const postgres = await benchPostgres();
	const trace = await PostgresTrace.open(postgres.url);
	const pgliteInbox = await startBenchInbox('pglite', env);
	const postgresInbox = await startBenchInbox('postgres', env, postgres.url);
	const ceilingPort = await freePort();
	const ceiling = startCeiling(ceilingPort);
	try {
		await waitForUrl(`http://127.0.0.1:${ceilingPort}/`, [ceiling]);
		console.log(`\nStores: PGlite, in the inbox's process (no fsync); PostgreSQL, ${postgres.origin}: ${await trace.settings()}`);
		const targets: Target[] = [
			{ name: 'inbox on PGlite', url: pgliteInbox.url, pid: pgliteInbox.process.child.pid! },
			{ name: 'inbox on PostgreSQL', url: postgresInbox.url, pid: postgresInbox.process.child.pid! },
			{ name: 'bare HMAC-only server', url: `http://127.0.0.1:${ceilingPort}`, pid: ceiling.child.pid! }
		];
		const [, onPostgres] = targets;
		const settled = () => Promise.all(targets.map((target) => settle(target.pid)));
		// Warm each up (JIT, the databases' caches) before measuring.
		for (const target of targets) await steady(target, 300, 5);
		// Alternate the three, several rounds, and report each one's median round: the machine is shared.
		const steadyRuns = targets.map((): LoadResult[] => []);
		const postgresRuns: Counters[] = [];
		await settled();
		await trace.resetStatements();
		for (let round = 0; round < ROUNDS; round++) {
			for (const [index, target] of targets.entries()) {
				await settled();
				if (target !== onPostgres) {
					steadyRuns[index].push(await steady(target));
					continue;
				}
				const before = await trace.counters();
				const probe = postgres.local ? startFlushProbe() : undefined;
				const run = await steady(target);
				const flushes = await probe?.stop();
				steadyRuns[index].push(flushes ? { ...run, flush: { p99: percentile(flushes, 0.99), max: flushes.at(-1)! } } : run);
				postgresRuns.push(minus(await trace.counters(), before));
			}
		}
		const statements = await trace.topStatements(8);
		const maxRuns = targets.map((): LoadResult[] => []);
		for (let round = 0; round < ROUNDS; round++) {
			for (const [index, target] of targets.entries()) {
				await settled();
				maxRuns[index].push(await unthrottled(target));
			}
		}
		// One more steady run on PostgreSQL, not counted above: sampling its backends costs CPU.
		await settled();
		const traced = steady(onPostgres);
		const [waits, tracedRun] = await Promise.all([trace.sampleWaits(traced), traced]);

		const [pglite, postgresql, ceilingSteady] = steadyRuns.map(median);
		const ceilingMax = median(maxRuns[2]);
		console.log(`Webhook receiver, ${DURATION_S} s per run, median of ${ROUNDS} alternating runs, unique signed message.created events:`);
		for (const [index, target] of targets.entries())
			console.log(row(`${target.name}, offered ${OFFERED_RATE}/s`, median(steadyRuns[index])));
		for (const [index, target] of targets.entries())
			console.log(row(`${target.name}, unthrottled (${CONNECTIONS} conn.)`, median(maxRuns[index])));
		const ratio = (inbox: LoadResult) => `p99 ${(inbox.p99 / Math.max(ceilingSteady.p99, 0.01)).toFixed(1)}x`;
		const rate = (index: number) => (median(maxRuns[index]).perSecond / ceilingMax.perSecond).toFixed(2);
		console.log(
			`  ratio to the ceiling: steady PGlite ${ratio(pglite)}, PostgreSQL ${ratio(postgresql)}; unthrottled events/s PGlite ${rate(0)}, PostgreSQL ${rate(1)}`
		);
		for (const [index, target] of targets.entries())
			console.log(
				`  every steady run, ${target.name}: ${steadyRuns[index].map((run) => `p99 ${run.p99.toFixed(1)} ms (load ${run.load.toFixed(2)}${run.flush ? `; disk flush p99 ${run.flush.p99.toFixed(1)} ms, longest ${run.flush.max.toFixed(0)} ms` : ''})`).join(', ')}`
			);
		console.log(
			`  target ≥ ${OFFERED_RATE} events/s acknowledged with p99 < ${TARGET_P99_MS} ms: PGlite ${met(pglite) ? 'met' : 'NOT met'}, PostgreSQL ${met(postgresql) ? 'met' : 'NOT met'}`
		);
		console.log('PostgreSQL trace:');
		for (const line of traceLines(
			postgresRuns,
			steadyRuns[1].map((run) => run.ok),
			statements
		))
			console.log(line);
		console.log(
			`  its backends, sampled every 10 ms in one more steady run (p99 ${tracedRun.p99.toFixed(1)} ms, load ${tracedRun.load.toFixed(2)}; ${waits.samples} busy samples): ${waits.shares
				.slice(0, 10)
				.map(([what, share]) => `${what} ${(share * 100).toFixed(0)}%`)
				.join(', ')}`
		);
		return { pglite, postgresql, ceiling: ceilingSteady };
	} finally {
		await ceiling.stop();
		await Promise.all([pgliteInbox.stop(), postgresInbox.stop()]);
		await trace.close();
		await postgres.stop();
	}
}
