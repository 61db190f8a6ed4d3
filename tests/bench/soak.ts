/**
 * `npm run bench:soak` (docs/operations.md "Soak"): the product on PGlite with the simulator, 100 open
 * `GET /api/events` streams of four agents, and signed `message.created` webhooks of their conversations
 * offered at 20 a second for `SOAK_MINUTES` (30 by default), through the real receiver. Each minute it
 * prints the acknowledgements' p50/p99, the deliveries' p99 (from the webhook's send to each stream's
 * receipt), what was not delivered by the end of the minute, the webhooks that failed, how long after its
 * start the minute's last webhook was answered (60 s for a server that keeps up: the webhooks go out on
 * time whatever the answers, so a backlog shows as a minute that takes longer and climbing acks) and the
 * inbox process's resident memory; the first minute is the reference of the last. A server that falls
 * behind shows it as a longer minute, a climbing ack or delivery p99, one that leaks as a climbing RSS.
 */
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { messageCreatedRequest } from './ingest';
import { openStreams, RunMessages, startFanoutStack, STREAMS_PER_ACCOUNT, team } from './fanout';
import { percentile, steadyLoad } from './steady-load';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const RATE = Number(process.env.SOAK_RATE ?? 20);
const STREAMS = 100;
/** After each minute's load, how long its last deliveries may take before they count as late. */
const GRACE_MS = 2_000;

interface Minute {
	minute: number;
	ackP50: number;
	ackP99: number;
	deliveryP99: number;
	undelivered: number;
	failed: number;
	/** From the minute's first webhook to the answer of its last. */
	answeredAfterS: number;
	rssMiB: number;
	load: number;
}

function residentMiB(pid: number): number {
	const line = readFileSync(`/proc/${pid}/status`, 'utf8')
		.split('\n')
		.find((entry) => entry.startsWith('VmRSS:'));
	return Number(line?.match(/\d+/)?.[0] ?? Number.NaN) / 1024;
}

function print(result: Minute): void {
	console.log(
		`  minute ${String(result.minute).padStart(2)}: ack p50 ${result.ackP50.toFixed(1).padStart(6)} ms  p99 ${result.ackP99.toFixed(1).padStart(6)} ms, delivery p99 ${result.deliveryP99.toFixed(1).padStart(7)} ms, ${result.undelivered} undelivered, ${result.failed} failed, all answered after ${result.answeredAfterS.toFixed(1)} s, RSS ${result.rssMiB.toFixed(1)} MiB (load ${result.load.toFixed(2)})`
	);
}

async function main(): Promise<void> {
	const stack = await startFanoutStack();
	const connections = new Agent({ keepAlive: false, maxSockets: Infinity });
	try {
		console.log(`Soak on PGlite: ${STREAMS} streams, ${RATE} webhooks/s, ${MINUTES} min; preparing...`);
		const prepared = await team(stack, Math.ceil(STREAMS / STREAMS_PER_ACCOUNT));
		const streams = await openStreams(prepared, STREAMS, connections);
		const pid = stack.inbox.process.child.pid!;
		const minutes: Minute[] = [];
		for (let minute = 1; minute <= MINUTES; minute++) {
			const run = new RunMessages(`msg_soak${process.pid}m${minute}x`, RATE * 60);
			for (const stream of streams) stream.follow(run);
			const acks: number[] = [];
			let next = 0;
			const load = loadavg()[0];
			const began = performance.now();
			const sent = await steadyLoad(
				stack.inbox.url,
				RATE,
				60,
				() => {
					run.sentAt[next] = performance.now();
					return messageCreatedRequest(
						stack.company.webhookSecret,
						prepared.conversationIds[next % prepared.conversationIds.length],
						`${run.prefix}${next++}`
					);
				},
				(index, latency, ok) => {
					if (ok) run.acknowledged[index] = 1;
					acks.push(latency);
				}
			);
			const answeredAt = performance.now();
			await new Promise((resolve) => setTimeout(resolve, GRACE_MS));
			acks.sort((a, b) => a - b);
			const deliveries = [...run.deliveries].sort((a, b) => a - b);
			const result: Minute = {
				minute,
				ackP50: percentile(acks, 0.5),
				ackP99: percentile(acks, 0.99),
				deliveryP99: percentile(deliveries, 0.99),
				undelivered: streams.reduce((sum, stream) => sum + stream.missing(), 0),
				failed: sent.sent - sent.ok,
				answeredAfterS: (answeredAt - began) / 1000,
				rssMiB: residentMiB(pid),
				load
			};
			minutes.push(result);
			print(result);
		}
		const [first] = minutes;
		const last = minutes[minutes.length - 1];
		console.log(
			`soak of ${MINUTES} min at ${RATE}/s with ${STREAMS} streams: ack p99 ${first.ackP99.toFixed(1)} → ${last.ackP99.toFixed(1)} ms, delivery p99 ${first.deliveryP99.toFixed(1)} → ${last.deliveryP99.toFixed(1)} ms, undelivered ${minutes.reduce((sum, entry) => sum + entry.undelivered, 0)}, RSS ${first.rssMiB.toFixed(1)} → ${last.rssMiB.toFixed(1)} MiB`
		);
		for (const stream of streams) stream.close();
	} finally {
		connections.destroy();
		await stack.stop();
	}
}

await main();
