/**
 * An open-loop load generator for `npm run bench:server`: requests leave at a constant rate, one every
 * 1/rate seconds, whatever the server's answers (autocannon's rate limit fires all its connections on
 * the same timer tick, in bursts). Each request's time runs from its scheduled departure to the end of
 * its answer, so a server that falls behind is charged for the wait (no coordinated omission).
 */
import { Agent, request } from 'node:http';

export interface PreparedRequest {
	method: 'GET' | 'POST';
	path: string;
	headers: Record<string, string>;
	body?: string;
}

export interface SteadyResult {
	sent: number;
	ok: number;
	failed: number;
	/** Milliseconds, sorted. */
	latencies: number[];
	seconds: number;
}

export function percentile(sorted: readonly number[], fraction: number): number {
	return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

/** `answered`, when given, hears of each request by its position in the sending order: its time and whether it was a 2xx. */
export async function steadyLoad(
	base: string,
	rate: number,
	seconds: number,
	next: () => PreparedRequest,
	answered?: (index: number, milliseconds: number, ok: boolean) => void
): Promise<SteadyResult> {
	const url = new URL(base);
	const agent = new Agent({ keepAlive: true, maxSockets: 256 });
	const total = Math.round(rate * seconds);
	const latencies: number[] = [];
	let ok = 0;
	let failed = 0;
	let settled = 0;
	const start = performance.now();
	await new Promise<void>((done) => {
		let sent = 0;
		const send = (index: number, due: number) => {
			const prepared = next();
			const outgoing = request(
				{ host: url.hostname, port: url.port, method: prepared.method, path: prepared.path, headers: prepared.headers, agent },
				(incoming) => {
					incoming.resume();
					incoming.on('end', () => {
						const latency = performance.now() - due;
						const success = (incoming.statusCode ?? 0) >= 200 && (incoming.statusCode ?? 0) < 300;
						latencies.push(latency);
						if (success) ok++;
						else failed++;
						answered?.(index, latency, success);
						if (++settled === total) done();
					});
				}
			);
			outgoing.on('error', () => {
				failed++;
				answered?.(index, performance.now() - due, false);
				if (++settled === total) done();
			});
			outgoing.end(prepared.body);
		};
		const tick = () => {
			const now = performance.now();
			// Everything due by now leaves now, each charged from its own due time.
			while (sent < total && start + (sent * 1000) / rate <= now) {
				send(sent, start + (sent * 1000) / rate);
				sent++;
			}
			if (sent < total) setTimeout(tick, Math.max(0, start + (sent * 1000) / rate - performance.now()));
		};
		tick();
	});
	agent.destroy();
	return { sent: total, ok, failed, latencies: latencies.sort((a, b) => a - b), seconds: (performance.now() - start) / 1000 };
}
