/**
 * A real HTTP forwarder put in front of the simulator to make the network misbehave on purpose: the next
 * requests can be answered with a status, or have their connection cut, before requests pass through
 * again; a path can also be answered by the front itself, every time, as a hostile or broken service
 * would. It records what reached it, so tests can see retries and their Idempotency-Keys.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
	method: string;
	path: string;
	headers: IncomingMessage['headers'];
	body: string;
	/** What the front did with it. */
	outcome: 'forwarded' | 'status' | 'cut' | 'canned' | 'held';
}

/** An answer the front gives itself: no Content-Type unless `headers` has one. */
export interface CannedAnswer {
	status: number;
	headers: Record<string, string>;
	body: string | Buffer;
}

export interface FlakyFront {
	url: string;
	seen: SeenRequest[];
	/** The next `count` requests get `status` (with `retryAfter` seconds), or have their connection cut. */
	failNext(count: number, failure: { status: number; retryAfter?: number } | 'cut'): void;
	/** Every request for `path` (without the query) gets `answer` instead of reaching the service. */
	answerPath(path: string, answer: CannedAnswer): void;
	/**
	 * A stopped service (a hung host): requests are held without an answer until `resume`, which cuts
	 * the held ones, as a service restarted meanwhile would have lost them, and lets new ones through.
	 */
	stall(): void;
	resume(): void;
	close(): Promise<void>;
}

export async function startFlakyFront(target: string): Promise<FlakyFront> {
	const failures: ({ status: number; retryAfter?: number } | 'cut')[] = [];
	const seen: SeenRequest[] = [];
	const canned = new Map<string, CannedAnswer>();
	let held: Array<() => void> | null = null;
	const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		incoming.on('end', () => {
			const body = Buffer.concat(chunks);
			const record = (outcome: SeenRequest['outcome']) =>
				seen.push({ method: incoming.method ?? '', path: incoming.url ?? '', headers: incoming.headers, body: body.toString(), outcome });
			const answer = canned.get(new URL(incoming.url ?? '/', target).pathname);
			if (answer) {
				record('canned');
				outgoing.writeHead(answer.status, answer.headers);
				outgoing.end(answer.body);
				return;
			}
			const failure = failures.shift();
			if (failure === 'cut') {
				record('cut');
				incoming.socket.destroy();
				return;
			}
			if (failure) {
				record('status');
				const headers: Record<string, string> = { 'content-type': 'application/json' };
				if (failure.retryAfter !== undefined) headers['retry-after'] = String(failure.retryAfter);
				outgoing.writeHead(failure.status, headers);
				outgoing.end(
					JSON.stringify({ error: { code: failure.status === 429 ? 'RATE_LIMITED' : 'INTERNAL', message: 'injected by the test' } })
				);
				return;
			}
			if (held) {
				record('held');
				held.push(() => incoming.socket.destroy());
				return;
			}
			record('forwarded');
			const url = new URL(incoming.url ?? '/', target);
			const forward = httpRequest(url, { method: incoming.method, headers: { ...incoming.headers, host: url.host } }, (answer) => {
				outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(outgoing);
			});
			forward.on('error', () => outgoing.destroy());
			forward.end(body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		seen,
		failNext(count, failure) {
			for (let i = 0; i < count; i++) failures.push(failure);
		},
		answerPath(path, answer) {
			canned.set(path, answer);
		},
		stall() {
			held ??= [];
		},
		resume() {
			const waiting = held ?? [];
			held = null;
			for (const cut of waiting) cut();
		},
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			})
	};
}
