/**
 * `npm run bench:preauth`: what a flood of unauthenticated large bodies costs everyone else
 * (docs/threat-model.md, "An outsider"). In one run, on this machine, against the production build:
 * `/api/health` latency (p50, p99) idle, then while 40 bodies of 180 KB per second, each holding many
 * key-like values, are posted to `/api/invites` without a session; and the ratio of the two p99s. The
 * gate refuses such a body by its size before deriving anything from it.
 */
import { ensureBuild } from '../../src/cli/stack/build';
import { startBenchInbox } from './bench-inbox';
import { percentile, steadyLoad, type PreparedRequest } from './steady-load';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const HEALTH_RATE = 50;
const FLOOD_RATE = 40;

/** 180 KB of distinct 32-byte base64url values: the most key derivations a body could ask for. */
function floodBody(): string {
	const values: string[] = [];
	for (let i = 0; values.join('","').length < 180_000; i++)
		values.push(
			Buffer.alloc(32, i % 251)
				.fill(i >> 8, 0, 1)
				.toString('base64url')
		);
	return JSON.stringify({ values });
}

async function main(): Promise<void> {
	await ensureBuild();
	const inbox = await startBenchInbox('preauth');
	try {
		const health: PreparedRequest = { method: 'GET', path: '/api/health', headers: {} };
		const body = floodBody();
		const flood: PreparedRequest = {
			method: 'POST',
			path: '/api/invites',
			headers: { 'content-type': 'application/json', origin: inbox.url, 'content-length': String(Buffer.byteLength(body)) },
			body
		};
		await steadyLoad(inbox.url, HEALTH_RATE, 2, () => health);
		const idle = await steadyLoad(inbox.url, HEALTH_RATE, SECONDS, () => health);
		const [flooded, floodAnswers] = await Promise.all([
			steadyLoad(inbox.url, HEALTH_RATE, SECONDS, () => health),
			steadyLoad(inbox.url, FLOOD_RATE, SECONDS, () => flood)
		]);
		const row = (label: string, latencies: number[]) =>
			`  ${label.padEnd(52)} p50 ${percentile(latencies, 0.5).toFixed(1).padStart(7)} ms   p99 ${percentile(latencies, 0.99).toFixed(1).padStart(7)} ms`;
		console.log(`bench:preauth — /api/health at ${HEALTH_RATE}/s for ${SECONDS} s (production build, PGlite)`);
		console.log(row('idle', idle.latencies));
		console.log(row(`under ${FLOOD_RATE}/s unauthenticated 180 KB bodies`, flooded.latencies));
		console.log(row('  the flood requests themselves (refused)', floodAnswers.latencies));
		console.log(
			`  ratio of p99 under flood to idle: ${(percentile(flooded.latencies, 0.99) / percentile(idle.latencies, 0.99)).toFixed(2)}`
		);
		console.log(`  flood answers: ${floodAnswers.ok} accepted, ${floodAnswers.failed} refused`);
	} finally {
		await inbox.stop();
	}
}

await main();
