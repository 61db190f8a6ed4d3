/**
 * `npm run bench:server`: in one run, on this machine,
 *  1. webhook events per second and the p50/p99 acknowledgement latency at a steady offered load for the
 *     real receiver (production build, PGlite, processing on), and for a bare node:http server that only
 *     verifies the HMAC (the ceiling), with their ratio; then the same two without a rate limit;
 *  2. the signing proxy's added latency: the same `/v1` GET through `/api/v1/...` and signed directly.
 * Targets: ≥ 1,000 stored events/s with p99 ack < 50 ms on PGlite; proxy overhead p50 < 2 ms.
 */
import autocannon from 'autocannon';
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuild } from '../../src/cli/stack/build';
import { freePort, startProcess, waitForUrl } from '../../src/cli/stack/processes';
import { startStack } from '../../src/cli/stack/stack';
import { signRequest } from '../../src/lib/crypto/hmac';
import { initCrypto } from '../../src/lib/crypto/sodium';
import { nodeHmacSha256 } from '../../src/lib/server/hmac';
import { Customer } from '../support/customer';
import { InboxClient } from '../support/inbox-client';
import { seedPgliteDataDir } from '../support/pglite-template';
import { webhookSignature } from '../support/webhooks';
import { BENCH_WEBHOOK_SECRET, startBenchInbox } from './bench-inbox';
import { percentile, steadyLoad, type PreparedRequest } from './steady-load';

const OFFERED_RATE = Number(process.env.BENCH_RATE ?? 1000);
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = 32;
const PROXY_REQUESTS = 2000;
const SECRET = BENCH_WEBHOOK_SECRET;

interface LoadResult {
	label: string;
	perSecond: number;
	ok: number;
	errors: number;
	p50: number;
	p99: number;
}

let eventCounter = 0;

function webhookRequest(): PreparedRequest {
	const body = JSON.stringify({
		id: `evt_bench${process.pid}x${++eventCounter}`,
		type: 'message.created',
		createdAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
		data: {
			conversationId: `conv_bench${eventCounter % 50}`,
			messageId: `msg_bench${process.pid}x${eventCounter}`,
			seq: eventCounter,
			senderType: 'user',
			contentType: 'text',
			encryption: {
				v: 1,
				scheme: 'sc1',
				keyVersion: 1,
				clientMessageId: `usr_${eventCounter}`,
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
			'x-service-signature': webhookSignature(SECRET, body),
			'x-service-event-id': `evt_h${eventCounter}`
		},
		body
	};
}

/** Unthrottled: as many requests as the server answers, from CONNECTIONS connections (autocannon). */
async function load(label: string, url: string): Promise<LoadResult> {
	const result = await autocannon({
		url,
		connections: CONNECTIONS,
		duration: DURATION_S,
		requests: [{ setupRequest: (request) => ({ ...request, ...webhookRequest() }) }]
	});
	const ok = result['2xx'];
	return {
		label,
		perSecond: ok / DURATION_S,
		ok,
		errors: result.non2xx + result.errors + result.timeouts,
		p50: result.latency.p50,
		p99: result.latency.p99
	};
}

/** A steady offered load: `rate` requests per second leave at even intervals (tests/bench/steady-load.ts). */
async function steady(label: string, url: string, rate: number, seconds = DURATION_S): Promise<LoadResult> {
	// Signed before the run (a signature stays valid 300 s), so the generator spends its time sending.
	const prepared = Array.from({ length: Math.round(rate * seconds) }, webhookRequest);
	let next = 0;
	const result = await steadyLoad(url, rate, seconds, () => prepared[next++]);
	return {
		label,
		perSecond: result.ok / result.seconds,
		ok: result.ok,
		errors: result.failed,
		p50: percentile(result.latencies, 0.5),
		p99: percentile(result.latencies, 0.99)
	};
}

/** The run with the median p99 (the same run's throughput goes with it). */
function median(results: LoadResult[]): LoadResult {
	return [...results].sort((a, b) => a.p99 - b.p99)[Math.floor(results.length / 2)];
}

function row(result: LoadResult): string {
	return `  ${result.label.padEnd(44)} ${result.perSecond.toFixed(0).padStart(6)} events/s   p50 ${result.p50.toFixed(1).padStart(6)} ms   p99 ${result.p99
		.toFixed(1)
		.padStart(6)} ms   (${result.ok} acknowledged, ${result.errors} failed)`;
}

async function receiverBench(): Promise<void> {
	// BENCH_PROCESSING=off measures receiving alone (processing is on, as in production, by default).
	const inbox = await startBenchInbox('receiver', { WEBHOOK_PROCESSING: process.env.BENCH_PROCESSING ?? 'on' });
	const ceilingPort = await freePort();
	const ceilingUrl = `http://127.0.0.1:${ceilingPort}`;
	const ceiling = startProcess(
		'ceiling',
		process.execPath,
		['--import', 'tsx', 'tests/bench/hmac-ceiling.ts', String(ceilingPort), SECRET],
		{}
	);
	await waitForUrl(`http://127.0.0.1:${ceilingPort}/`, [ceiling]);
	try {
		// Warm both up (JIT, PGlite's caches) before measuring.
		await steady('warm-up', inbox.url, 300, 5);
		await steady('warm-up', ceilingUrl, 300, 5);
		// Alternate the two, several rounds, and report each one's median round: the machine is shared.
		const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
		const steadyInbox: LoadResult[] = [];
		const steadyCeiling: LoadResult[] = [];
		const maxInbox: LoadResult[] = [];
		const maxCeiling: LoadResult[] = [];
		for (let round = 0; round < rounds; round++) {
			steadyInbox.push(await steady(`inbox receiver (PGlite), offered ${OFFERED_RATE}/s`, inbox.url, OFFERED_RATE));
			steadyCeiling.push(await steady(`bare HMAC-only server, offered ${OFFERED_RATE}/s`, ceilingUrl, OFFERED_RATE));
		}
		for (let round = 0; round < rounds; round++) {
			maxInbox.push(await load(`inbox receiver (PGlite), unthrottled (${CONNECTIONS} connections)`, inbox.url));
			maxCeiling.push(await load(`bare HMAC-only server, unthrottled (${CONNECTIONS} connections)`, ceilingUrl));
		}
		const results = [median(steadyInbox), median(steadyCeiling), median(maxInbox), median(maxCeiling)];
		const [inboxSteady, ceilingSteady, inboxMax, ceilingMax] = results;
		console.log(`\nWebhook receiver, ${DURATION_S} s per run, median of ${rounds} alternating runs, unique signed message.created events:`);
		for (const result of results) console.log(row(result));
		console.log(
			`  ratio inbox / ceiling: steady ${(inboxSteady.perSecond / ceilingSteady.perSecond).toFixed(2)} (p99 ${(
				inboxSteady.p99 / Math.max(ceilingSteady.p99, 0.01)
			).toFixed(1)}x), unthrottled ${(inboxMax.perSecond / ceilingMax.perSecond).toFixed(2)}`
		);
		console.log(
			`  every steady run of the inbox: ${steadyInbox.map((result) => `${result.perSecond.toFixed(0)}/s p99 ${result.p99} ms`).join(', ')}`
		);
		const met = inboxSteady.perSecond >= 1000 * 0.99 && inboxSteady.p99 < 50 && inboxSteady.errors === 0;
		console.log(`  target ≥ 1,000 stored events/s with p99 < 50 ms on PGlite: ${met ? 'met' : 'NOT met'}`);
	} finally {
		await ceiling.stop();
		await inbox.stop();
	}
}

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
// BENCH_ONLY=receiver or BENCH_ONLY=proxy runs one half.
if (process.env.BENCH_ONLY !== 'proxy') await receiverBench();
if (process.env.BENCH_ONLY !== 'receiver') await proxyBench();
console.log(
	`\nLoad average at the end: ${loadavg()
		.map((value) => value.toFixed(2))
		.join(' ')}`
);
