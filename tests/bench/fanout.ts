/**
 * The fan-out half of `npm run bench:server` (docs/operations.md "Throughput", "Fan-out"): on PGlite,
 * then on PostgreSQL, the product with the simulator, agents of the latest roster, conversations their customers started (so
 * sealed for those agents), and 0, then 100, then 1,000 open `GET /api/events` streams spread over the
 * agents' sessions. Each run offers signed `message.created` webhooks of those conversations at a steady
 * rate and measures the acknowledgements and, for every stream and every acknowledged message, when the
 * stream received it, counted from when its webhook was sent, and the bytes the streams received. The
 * run without streams is the reference.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/cli/stack/ports';
import { startProcess, waitForUrl } from '../../src/cli/stack/processes';
import { startStack, type AccountSpec, type Stack } from '../../src/cli/stack/stack';
import { addToRoster, newAgent, type TestAgent } from '../support/admin-api';
import { Customer } from '../support/customer';
import { InboxClient } from '../support/inbox-client';
import { seedPgliteDataDir } from '../support/pglite-template';
import { benchPostgres } from './bench-postgres';
import { messageCreatedRequest, OFFERED_RATE } from './ingest';
import { cpuSeconds, settle } from './process-cpu';
import { clockMs, RunMessages } from './run-messages';
import { percentile, steadyLoad } from './steady-load';
import { StreamReaders } from './stream-readers';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const STREAM_COUNTS = [100, 1000];
const CONVERSATIONS = 20;
/** The default per-account cap; one session per agent holds all of its streams (the session cap is raised to match). */
export const STREAMS_PER_ACCOUNT = 30;
/** After the load, how long the streams may go without receiving anything before what is missing counts as lost. */
const QUIET_MS = 15_000;
const TARGET_ACK_P99_MS = 50;
const TARGET_DELIVERY_P99_MS = 250;
const ADMIN: AccountSpec = { username: 'fanout-admin', displayName: 'Fan-out Admin', role: 'admin', password: 'fanout admin password' };

export interface FanoutResult {
	streams: number;
	events: number;
	ack: { p50: number; p99: number };
	delivery: { p50: number; p99: number };
	expected: number;
	received: number;
	missing: number;
	/** The one-minute load average when the load started. */
	load: number;
	/** From the end of the load until the last delivery. */
	drainMs: number;
	/** What the streams received in all, in bytes. */
	bytes: number;
	/** Where the run's time went: CPU seconds of the server's process (the inbox's or the ceiling's) and of this bench's, over the run's seconds. */
	cpu: { server: number; bench: number; seconds: number };
	/** What events showed accounts, worked out (database queries) and shared, during the run (`inbox_live_answers_total`). */
	answers: { worked: number; shared: number };
}

export interface Team {
	stack: Stack;
	agents: TestAgent[];
	conversationIds: string[];
}

/** Agents of the latest roster, then conversations their customers start, sealed for every one of them. */
export async function team(stack: Stack, agentCount: number): Promise<Team> {
	const admin = await InboxClient.loggedIn(stack.inbox.url, ADMIN.username, ADMIN.password);
	const agents: TestAgent[] = [];
	for (let index = 0; index < agentCount; index++) agents.push(await newAgent(admin, 'fanout'));
	await addToRoster(
		stack,
		admin,
		agents.map((agent) => agent.rosterEntry)
	);
	const conversationIds: string[] = [];
	for (let index = 0; index < CONVERSATIONS; index++) {
		const invited = await admin.post('/api/invites', {});
		if (invited.status !== 201) throw new Error(`the invitation was refused: ${JSON.stringify(invited.body)}`);
		conversationIds.push((await Customer.redeem(stack.simUrl, { link: invited.body.link })).conversationId);
	}
	// The conversations exist for the inbox once their conversation.started webhooks are processed.
	const lastAgent = agents[agents.length - 1].client;
	for (let waited = 0; ; waited += 200) {
		const listed = await lastAgent.get(`/api/conversations?limit=${CONVERSATIONS + 10}`);
		if (listed.status === 200 && listed.body.data.length >= CONVERSATIONS) break;
		if (waited > 60_000) throw new Error(`the inbox lists ${JSON.stringify(listed.body)}`);
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	return { stack, agents, conversationIds };
}

let runCounter = 0;

/** What a run offers its load to and reads its streams from: the inbox with its team, or the ceiling. */
interface FanoutTarget {
	url: string;
	pid: number;
	webhookSecret: string;
	conversationIds: string[];
	/** The session cookie of the stream at `index`. */
	cookieOf(index: number): string;
	/** `inbox_live_answers_total` so far, by outcome. */
	answers(): Promise<{ worked: number; shared: number }>;
}

function teamTarget(team: Team): FanoutTarget {
	return {
		url: team.stack.inbox.url,
		pid: team.stack.inbox.process.child.pid!,
		webhookSecret: team.stack.company.webhookSecret,
		conversationIds: team.conversationIds,
		cookieOf: (index) => team.agents[Math.floor(index / STREAMS_PER_ACCOUNT)].client.cookie!,
		answers: () => liveAnswers(team.stack)
	};
}

/** Opens `streamCount` streams, offers the load, waits for the deliveries to end, and closes the streams. */
async function fanoutRun(target: FanoutTarget, streamCount: number): Promise<FanoutResult> {
	const readers = await StreamReaders.open(target.url, target.cookieOf, streamCount);
	try {
		await settle(target.pid);
		const total = Math.round(OFFERED_RATE * SECONDS);
		const run = new RunMessages(`msg_fan${process.pid}r${++runCounter}x`, total);
		readers.follow(run);
		// Signed before the run (a signature stays valid 300 s), so the generator spends its time sending.
		const prepared = Array.from({ length: total }, (_, index) =>
			messageCreatedRequest(target.webhookSecret, target.conversationIds[index % target.conversationIds.length], `${run.prefix}${index}`)
		);
		let next = 0;
		const load = loadavg()[0];
		const pid = target.pid;
		const answersBefore = await target.answers();
		const [serverCpuBefore, benchCpuBefore, startedAt] = [cpuSeconds(pid), cpuSeconds(process.pid), performance.now()];
		const acks: number[] = [];
		const sent = await steadyLoad(
			target.url,
			OFFERED_RATE,
			SECONDS,
			() => {
				run.sentAt[next] = clockMs();
				return prepared[next++];
			},
			(index, latency, ok) => {
				if (ok) run.acknowledged[index] = 1;
				acks.push(latency);
			}
		);
		const loadEnded = clockMs();
		const expected = sent.ok * streamCount;
		while (run.received < expected && clockMs() - Math.max(run.lastDelivery, loadEnded) < QUIET_MS)
			await new Promise((resolve) => setTimeout(resolve, 100));
		const cpu = {
			server: cpuSeconds(pid) - serverCpuBefore,
			bench: cpuSeconds(process.pid) - benchCpuBefore,
			seconds: (performance.now() - startedAt) / 1000
		};
		const answersAfter = await target.answers();
		const reading = await readers.collect();
		acks.sort((a, b) => a - b);
		return {
			streams: streamCount,
			events: sent.ok,
			ack: { p50: percentile(acks, 0.5), p99: percentile(acks, 0.99) },
			delivery: { p50: percentile(reading.deliveries, 0.5), p99: percentile(reading.deliveries, 0.99) },
			expected,
			received: reading.deliveries.length,
			missing: reading.missing,
			load,
			drainMs: run.lastDelivery > loadEnded ? run.lastDelivery - loadEnded : 0,
			bytes: reading.bytes,
			cpu,
			answers: { worked: answersAfter.worked - answersBefore.worked, shared: answersAfter.shared - answersBefore.shared }
		};
	} finally {
		await readers.close();
	}
}

function row(result: FanoutResult, reference: FanoutResult): string {
	const delivery = result.streams
		? `delivery p50 ${result.delivery.p50.toFixed(1).padStart(7)} ms   p99 ${result.delivery.p99.toFixed(1).padStart(7)} ms, deliveries ${result.received}/${result.expected} received, ${result.missing} missing, last ${result.drainMs.toFixed(0)} ms after the load`
		: 'no deliveries (the reference)';
	const ratio = result.streams ? `; ack p99 ${(result.ack.p99 / Math.max(reference.ack.p99, 0.01)).toFixed(1)}x the reference` : '';
	const sent = result.streams
		? `; the streams received ${(result.bytes / 1e6).toFixed(0)} MB (${(result.bytes / 1e6 / result.cpu.seconds).toFixed(0)} MB/s)`
		: '';
	const spent = `        CPU over the run's ${result.cpu.seconds.toFixed(1)} s: server ${result.cpu.server.toFixed(1)} s, this bench ${result.cpu.bench.toFixed(1)} s; answers worked out ${result.answers.worked}, shared ${result.answers.shared}${sent}`;
	return `  ${String(result.streams).padStart(5)} streams: ${result.events} events, ack p50 ${result.ack.p50.toFixed(1).padStart(6)} ms   p99 ${result.ack.p99.toFixed(1).padStart(6)} ms   ${delivery} (load ${result.load.toFixed(2)}${ratio})\n${spent}`;
}

/** The bench's bearer token for the inbox's `/metrics` (docs/operations.md "Metrics"). */
const METRICS_TOKEN = randomBytes(24).toString('base64url');

/**
 * The product with the simulator and the admin, each account allowed `STREAMS_PER_ACCOUNT` streams: on
 * PGlite, or on the PostgreSQL database at `databaseUrl`.
 */
export function startFanoutStack(databaseUrl: string | null = null): Promise<Stack> {
	const dataDir = mkdtempSync(join(tmpdir(), 'bench-fanout-'));
	const caps = { CAP_STREAMS_PER_SESSION: String(STREAMS_PER_ACCOUNT), CAP_STREAMS_PER_ACCOUNT: String(STREAMS_PER_ACCOUNT) };
	return startStack({
		dataDir,
		databaseUrl,
		accounts: [ADMIN],
		prepare: databaseUrl ? undefined : () => seedPgliteDataDir(dataDir),
		inboxEnv: { ...caps, METRICS_TOKEN }
	});
}

/** The inbox's metrics now: the value of each sample by its name and labels as printed (`name{label="value"}`). */
export async function inboxMetrics(stack: Stack): Promise<(sample: string) => number> {
	const text = await (await fetch(`${stack.inbox.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
	const values = new Map<string, number>();
	for (const line of text.split('\n')) {
		const match = /^(\S+) (\S+)$/.exec(line);
		if (match && !line.startsWith('#')) values.set(match[1], Number(match[2]));
	}
	return (sample) => values.get(sample) ?? Number.NaN;
}

/** `inbox_live_answers_total` of the inbox so far, by outcome. */
async function liveAnswers(stack: Stack): Promise<{ worked: number; shared: number }> {
	const sample = await inboxMetrics(stack);
	const count = (outcome: string) => sample(`inbox_live_answers_total{outcome="${outcome}"}`) || 0;
	return { worked: count('worked'), shared: count('shared') };
}

/** Opens `count` streams spread over the team's agents, each account up to `STREAMS_PER_ACCOUNT`; resolves once all are ready. */
export function openStreams(team: Team, count: number): Promise<StreamReaders> {
	const target = teamTarget(team);
	return StreamReaders.open(target.url, target.cookieOf, count);
}

/** The runs with 0 (the reference), 100 and 1,000 streams of `target`, printed under `title`; the last is the 1,000-stream run. */
async function fanoutRuns(title: string, target: FanoutTarget): Promise<FanoutResult[]> {
	// Warm up (JIT, the database's cache) before measuring.
	await fanoutRun(target, 0);
	const results: FanoutResult[] = [];
	for (const streamCount of [0, ...STREAM_COUNTS]) results.push(await fanoutRun(target, streamCount));
	const [reference] = results;
	console.log(
		`${title}, ${SECONDS} s offered at ${OFFERED_RATE}/s per run, every stream may see every message (delivery counted from the webhook's send):`
	);
	for (const result of results) console.log(row(result, reference));
	const largest = results[results.length - 1];
	const met = largest.ack.p99 < TARGET_ACK_P99_MS && largest.delivery.p99 < TARGET_DELIVERY_P99_MS && largest.missing === 0;
	console.log(
		`  target with ${largest.streams} streams: ack p99 < ${TARGET_ACK_P99_MS} ms, delivery p99 < ${TARGET_DELIVERY_P99_MS} ms, none missing: ${met ? 'met' : 'NOT met'}`
	);
	return results;
}

/** The runs on one store. */
async function fanoutOnStore(storeName: string, databaseUrl: string | null): Promise<FanoutResult[]> {
	const agentCount = Math.ceil(Math.max(...STREAM_COUNTS) / STREAMS_PER_ACCOUNT);
	const stack = await startFanoutStack(databaseUrl);
	try {
		console.log(
			`\nFan-out on ${storeName}: ${agentCount} agents of the roster, one session each with up to ${STREAMS_PER_ACCOUNT} streams (CAP_STREAMS_PER_SESSION raised to ${STREAMS_PER_ACCOUNT}, the per-account cap), ${CONVERSATIONS} conversations sealed for all of them; preparing...`
		);
		return await fanoutRuns(`Fan-out on ${storeName}`, teamTarget(await team(stack, agentCount)));
	} finally {
		await stack.stop();
	}
}

/** The same runs against the bare server of `fanout-ceiling.ts`: what this machine's sockets allow any server. */
async function fanoutCeiling(): Promise<FanoutResult[]> {
	const port = await freePort();
	const secret = randomBytes(32).toString('base64url');
	const ceiling = startProcess(
		'fanout-ceiling',
		process.execPath,
		['--import', 'tsx', 'tests/bench/fanout-ceiling.ts', String(port), secret],
		{}
	);
	try {
		const url = `http://127.0.0.1:${port}`;
		await waitForUrl(`${url}/`, [ceiling]);
		console.log(
			'\nFan-out ceiling: a bare node:http server that verifies each webhook and writes the same frames to every stream, no database'
		);
		return await fanoutRuns('Fan-out ceiling', {
			url,
			pid: ceiling.child.pid!,
			webhookSecret: secret,
			conversationIds: Array.from({ length: CONVERSATIONS }, (_, index) => `conv_ceiling${index}`),
			cookieOf: () => '',
			answers: async () => ({ worked: 0, shared: 0 })
		});
	} finally {
		await ceiling.stop();
	}
}

/**
 * The fan-out's ceiling, then on PGlite, then on PostgreSQL (the store production runs on, a throwaway
 * cluster or `DATABASE_URL`'s server as the receiver's part uses): each one's runs.
 * `BENCH_FANOUT_STORE=ceiling`, `=pglite` or `=postgresql` runs one.
 */
export async function fanoutBench(): Promise<{ ceiling?: FanoutResult[]; pglite?: FanoutResult[]; postgresql?: FanoutResult[] }> {
	const only = process.env.BENCH_FANOUT_STORE;
	const ceiling = only && only !== 'ceiling' ? undefined : await fanoutCeiling();
	const pglite = only && only !== 'pglite' ? undefined : await fanoutOnStore('PGlite', null);
	if (only && only !== 'postgresql') return { ceiling, pglite };
	const postgres = await benchPostgres();
	try {
		return { ceiling, pglite, postgresql: await fanoutOnStore(`PostgreSQL, ${postgres.origin}`, postgres.url) };
	} finally {
		await postgres.stop();
	}
}
