/**
 * `npm run bench:server`: in one run, on this machine (docs/operations.md "Throughput"),
 *  1. webhook events per second and the p50/p99 acknowledgement latency at a steady offered load for the
 *     real receiver (production build, processing on) on PGlite and on PostgreSQL (`DATABASE_URL`'s
 *     server, or a throwaway cluster), and for a bare node:http server that only verifies the HMAC (the
 *     ceiling), with their ratios; then the same three without a rate limit (tests/bench/ingest.ts);
 *  2. the signing proxy's added latency: the same `/v1` GET through `/api/v1/...` and signed directly;
 *  3. the fan-out: the same steady load with 0, 100 and 1,000 open event streams, each of which should
 *     receive every message, and how late it does, on each store (tests/bench/fanout.ts).
 * Targets: ≥ 1,000 stored events/s with p99 ack < 50 ms on both stores; proxy overhead p50 < 2 ms; with
 * 1,000 streams, ack p99 < 50 ms and delivery p99 < 250 ms, none missing. The last lines sum up:
 * `ingest p99 at 1000/s: pglite … ms, postgresql … ms, ceiling … ms`, then
 * `fanout on pglite at 1000/s with 1000 streams: …` and last, on PostgreSQL,
 * `fanout at 1000/s with 1000 streams: ack p99 … ms, delivery p99 … ms`.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild } from '../../src/cli/stack/build';
import { startStack } from '../../src/cli/stack/stack';
import { signRequest } from '../../src/lib/crypto/hmac';
import { initCrypto } from '../../src/lib/crypto/sodium';
import { nodeHmacSha256 } from '../../src/lib/server/hmac';
import { Customer } from '../support/customer';
import { InboxClient } from '../support/inbox-client';
import { seedPgliteDataDir } from '../support/pglite-template';
import { fanoutBench, type FanoutResult } from './fanout';
import { ingestBench, OFFERED_RATE, type IngestResult } from './ingest';
import { percentile } from './steady-load';

const PROXY_REQUESTS = 2000;

/** Sequential GETs over one kept-alive connection, timed one by one (autocannon rounds latencies to whole ms). */
async function latencies(url: string, headers: Record<string, string>): Promise<{ p50: number; p99: number }> {
	const times: number[] = [];
	for (let i = 0; i < PROXY_REQUESTS; i++) {
		const started = performance.now();
		const response = await fetch(url, { headers });
		await response.arrayBuffer();
		times.push(performance.now() - started);
		if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
	}
	times.sort((a, b) => a - b);
	return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

async function proxyBench(): Promise<void> {
	const dataDir = mkdtempSync(join(tmpdir(), 'bench-proxy-'));
	const agentAccount = { username: 'bench', displayName: 'Bench', role: 'agent' as const, password: 'bench password 123' };
	const stack = await startStack({ dataDir, accounts: [agentAccount], prepare: () => seedPgliteDataDir(dataDir) });
	try {
		const agent = await InboxClient.loggedIn(stack.inbox.url, agentAccount.username, agentAccount.password);
		const invited = await agent.post('/api/invites', {});
		const customer = await Customer.redeem(stack.simUrl, { link: invited.body.link });
		const path = `/v1/conversations/${customer.conversationId}`;
		// Signed once: the timestamp stays valid for the 300 s of contract 5.1, longer than this run.
		const signed = signRequest(
			{ secret: stack.company.webhookSecret, t: Math.floor(Date.now() / 1000), method: 'GET', pathAndQuery: path, body: '' },
			nodeHmacSha256
		);
		const directHeaders = { authorization: `Bearer ${stack.company.apiKey}`, 'x-service-signature': signed.header };
		const proxyHeaders = { cookie: agent.cookie! };
		await latencies(`${stack.simUrl}${path}`, directHeaders);
		await latencies(`${stack.inbox.url}/api${path}`, proxyHeaders);
		// Alternate the two, so that a change of machine load touches both alike.
		const direct: { p50: number; p99: number }[] = [];
		const proxied: { p50: number; p99: number }[] = [];
		for (let round = 0; round < 3; round++) {
			direct.push(await latencies(`${stack.simUrl}${path}`, directHeaders));
			proxied.push(await latencies(`${stack.inbox.url}/api${path}`, proxyHeaders));
		}
		const middle = (list: { p50: number; p99: number }[]) => ({
			p50: [...list.map((entry) => entry.p50)].sort((a, b) => a - b)[1],
			p99: [...list.map((entry) => entry.p99)].sort((a, b) => a - b)[1]
		});
		const directMid = middle(direct);
		const proxiedMid = middle(proxied);
		console.log(
			`\nSigning proxy, GET ${path.replace(customer.conversationId, '{id}')}, ${PROXY_REQUESTS} sequential requests per round, median of 3 rounds:`
		);
		console.log(`  directly to the simulator, signed      p50 ${directMid.p50.toFixed(2)} ms   p99 ${directMid.p99.toFixed(2)} ms`);
		console.log(`  through /api/v1 (session, allowlist)   p50 ${proxiedMid.p50.toFixed(2)} ms   p99 ${proxiedMid.p99.toFixed(2)} ms`);
		const overhead = proxiedMid.p50 - directMid.p50;
		console.log(`  added by the proxy: p50 ${overhead.toFixed(2)} ms, p99 ${(proxiedMid.p99 - directMid.p99).toFixed(2)} ms`);
		console.log(`  target proxy overhead p50 < 2 ms: ${overhead < 2 ? 'met' : 'NOT met'}`);
	} finally {
		await stack.stop();
	}
}

await initCrypto();
console.log(
	`Machine: ${cpus().length} cores, load average ${loadavg()
		.map((value) => value.toFixed(2))
		.join(' ')} (other work shares these cores)`
);
console.log('Preparing the production build...');
await ensureBuild();
// BENCH_ONLY=receiver, BENCH_ONLY=proxy or BENCH_ONLY=fanout runs one part.
const only = process.env.BENCH_ONLY;
let ingest: IngestResult | undefined;
let fanout: Awaited<ReturnType<typeof fanoutBench>> | undefined;
if (!only || only === 'receiver') ingest = await ingestBench();
if (!only || only === 'proxy') await proxyBench();
if (!only || only === 'fanout') fanout = await fanoutBench();
console.log(
	`\nLoad average at the end: ${loadavg()
		.map((value) => value.toFixed(2))
		.join(' ')}`
);
if (ingest)
	console.log(
		`ingest p99 at ${OFFERED_RATE}/s: pglite ${ingest.pglite.p99.toFixed(1)} ms, postgresql ${ingest.postgresql.p99.toFixed(1)} ms, ceiling ${ingest.ceiling.p99.toFixed(1)} ms`
	);
/** The 1,000-stream run's figures of one store. */
function fanoutSummary(results: FanoutResult[]): string {
	const largest = results[results.length - 1];
	return `at ${OFFERED_RATE}/s with ${largest.streams} streams: ack p99 ${largest.ack.p99.toFixed(1)} ms, delivery p99 ${largest.delivery.p99.toFixed(1)} ms`;
}
// the last line is the store production runs on
if (fanout?.ceiling) console.log(`fanout ceiling ${fanoutSummary(fanout.ceiling)}`);
if (fanout?.pglite) console.log(`fanout on pglite ${fanoutSummary(fanout.pglite)}`);
if (fanout?.postgresql) console.log(`fanout ${fanoutSummary(fanout.postgresql)}`);
