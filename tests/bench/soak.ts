/**
 * `npm run bench:soak` (docs/operations.md "Soak"): the product on PGlite with the simulator, 100 open
 * `GET /api/events` streams of four agents, and signed `message.created` webhooks of their conversations
 * offered at 20 a second for `SOAK_MINUTES` (30 by default), through the real receiver. Each minute it
 * prints the acknowledgements' p50/p99, the deliveries' p99 (from the webhook's send to each stream's
 * receipt), what was not delivered by the end of the minute, the webhooks that failed, how long after its
 * start the minute's last webhook was answered (60 s for a server that keeps up: the webhooks go out on
 * time whatever the answers, so a backlog shows as a minute that takes longer and climbing acks) and the
 * inbox process's resident memory with its parts (the main thread's heap, the memory its buffers hold
 * outside it, PGlite's WASM memory and its thread's heap, from the inbox's metrics; and by kind of mapping
 * from the kernel, resident.ts: files, malloc's arenas, WASM memories, the rest); the first minute is
 * the reference of the last. A server that falls behind shows it as a longer minute, a climbing ack or
 * delivery p99, one that leaks as a climbing RSS.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { messageCreatedRequest } from './ingest';
import { ensureBuild } from '../../src/cli/stack/build';
import type { Stack } from '../../src/cli/stack/stack';
import { inboxMetrics, openStreams, startFanoutStack, STREAMS_PER_ACCOUNT, team } from './fanout';
import { clockMs, RunMessages } from './run-messages';
import { RESIDENT_PARTS, residentParts, type ResidentParts } from './resident';
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
	/** Where the resident memory is, from the inbox's metrics (MiB). */
	memory: MemoryParts;
	/** The resident memory by kind of mapping, from the kernel (MiB). */
	resident: ResidentParts;
	load: number;
}

/** The parts of the inbox process's memory its metrics name, in MiB. */
interface MemoryParts {
	/** The main thread's V8 heap as held (in use or not). */
	heap: number;
	/** Memory outside the heap held by its objects (buffers). */
	external: number;
	/** PGlite: PostgreSQL's WASM memory, and the JS heap of the thread that runs it. */
	wasm: number;
	databaseHeap: number;
}

const MIB = 1024 * 1024;

async function memoryParts(stack: Stack): Promise<MemoryParts> {
	const sample = await inboxMetrics(stack);
	return {
		heap: sample('inbox_nodejs_heap_size_total_bytes') / MIB,
		external: sample('inbox_nodejs_external_memory_bytes') / MIB,
		wasm: sample('inbox_embedded_database_bytes{part="wasm"}') / MIB,
		databaseHeap: sample('inbox_embedded_database_bytes{part="worker_heap"}') / MIB
	};
}

const PARTS: [keyof MemoryParts, string][] = [
	['heap', 'main heap'],
	['external', 'external'],
	['wasm', 'database WASM'],
	['databaseHeap', "database thread's heap"]
];

function residentMiB(pid: number): number {
	const line = readFileSync(`/proc/${pid}/status`, 'utf8')
		.split('\n')
		.find((entry) => entry.startsWith('VmRSS:'));
	return Number(line?.match(/\d+/)?.[0] ?? Number.NaN) / 1024;
}

function print(result: Minute): void {
	console.log(
		`  minute ${String(result.minute).padStart(2)}: ack p50 ${result.ackP50.toFixed(1).padStart(6)} ms  p99 ${result.ackP99.toFixed(1).padStart(6)} ms, delivery p99 ${result.deliveryP99.toFixed(1).padStart(7)} ms, ${result.undelivered} undelivered, ${result.failed} failed, all answered after ${result.answeredAfterS.toFixed(1)} s, RSS ${result.rssMiB.toFixed(1)} MiB (${PARTS.map(([part, name]) => `${name} ${result.memory[part].toFixed(1)}`).join(', ')}; mapped as ${RESIDENT_PARTS.map(([part, name]) => `${name} ${result.resident[part].toFixed(1)}`).join(', ')}) (load ${result.load.toFixed(2)})`
	);
}

async function main(): Promise<void> {
	// the product as the sources are now, not whatever build an earlier command left
	await ensureBuild();
	const stack = await startFanoutStack();
	try {
		console.log(`Soak on PGlite: ${STREAMS} streams, ${RATE} webhooks/s, ${MINUTES} min; preparing...`);
		const prepared = await team(stack, Math.ceil(STREAMS / STREAMS_PER_ACCOUNT));
		const streams = await openStreams(prepared, STREAMS);
		const pid = stack.inbox.process.child.pid!;
		const minutes: Minute[] = [];
		for (let minute = 1; minute <= MINUTES; minute++) {
			const run = new RunMessages(`msg_soak${process.pid}m${minute}x`, RATE * 60);
			streams.follow(run);
			const acks: number[] = [];
			let next = 0;
			const load = loadavg()[0];
			const began = performance.now();
			const sent = await steadyLoad(
				stack.inbox.url,
				RATE,
				60,
				() => {
					run.sentAt[next] = clockMs();
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
			const { deliveries, missing } = await streams.collect();
			const result: Minute = {
				minute,
				ackP50: percentile(acks, 0.5),
				ackP99: percentile(acks, 0.99),
				deliveryP99: percentile(deliveries, 0.99),
				undelivered: missing,
				failed: sent.sent - sent.ok,
				answeredAfterS: (answeredAt - began) / 1000,
				rssMiB: residentMiB(pid),
				memory: await memoryParts(stack),
				resident: residentParts(pid),
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
		const grown = (part: keyof MemoryParts) => last.memory[part] - first.memory[part];
		const named = PARTS.reduce((sum, [part]) => sum + grown(part), 0);
		console.log(
			`  memory grown from minute 1 to ${MINUTES} (MiB): RSS ${(last.rssMiB - first.rssMiB).toFixed(1)}, ${PARTS.map(([part, name]) => `${name} ${grown(part).toFixed(1)}`).join(', ')}, the rest (code, stacks, the allocator's pages) ${(last.rssMiB - first.rssMiB - named).toFixed(1)}`
		);
		console.log(
			`  resident memory grown by kind of mapping (MiB): ${RESIDENT_PARTS.map(([part, name]) => `${name} ${(last.resident[part] - first.resident[part]).toFixed(1)}`).join(', ')}`
		);
		await streams.close();
	} finally {
		await stack.stop();
	}
}

await main();
