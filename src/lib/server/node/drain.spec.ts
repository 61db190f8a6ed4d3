import { once } from 'node:events';
import { Agent, createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionDrain, RECENTLY_ANSWERED_MS } from './drain';

let server: Server | undefined;
afterEach(() => server?.closeAllConnections());

interface Answer {
	status: number;
	headers: IncomingHttpHeaders;
	body: string;
	reusedSocket: boolean;
}

function get(port: number, agent: Agent, path: string): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const outgoing = httpRequest({ host: '127.0.0.1', port, path, agent }, (response) => {
			let body = '';
			response.setEncoding('utf8').on('data', (chunk) => (body += chunk));
			response.on('end', () =>
				resolve({ status: response.statusCode!, headers: response.headers, body, reusedSocket: outgoing.reusedSocket })
			);
		});
		outgoing.on('error', reject).end();
	});
}

/** A server whose `/slow` answers when told to; a test clock for the drain. */
async function serve() {
	const clock = { now: 0 };
	const slow: (() => void)[] = [];
	server = createServer((request, response) => {
		const reply = () => response.end(`answer to ${request.url}`);
		if (request.url === '/slow') slow.push(reply);
		else reply();
	});
	const drain = new ConnectionDrain(server, () => clock.now);
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	return { drain, clock, slow, port: (server.address() as AddressInfo).port };
}

describe('stopping the HTTP server under load (docs/operations.md "Stopping a process")', () => {
	it('finishes what is under way with Connection: close, serves a request on an old connection and closes it, refuses new connections', async () => {
		const { drain, slow, port } = await serve();
		const busy = new Agent({ keepAlive: true, maxSockets: 1 });
		const recent = new Agent({ keepAlive: true, maxSockets: 1 });
		expect((await get(port, recent, '/first')).headers.connection).toBe('keep-alive');
		const underWay = get(port, busy, '/slow');
		await expect.poll(() => slow.length).toBe(1);

		let closed = false;
		drain.stop(() => (closed = true));
		expect(drain.stopping).toBe(true);
		// the connection that answered a moment ago may carry its client's next request: it is served, then closed
		const next = await get(port, recent, '/next');
		expect([next.status, next.body, next.headers.connection, next.reusedSocket]).toEqual([200, 'answer to /next', 'close', true]);
		slow[0]();
		const finished = await underWay;
		expect([finished.status, finished.body, finished.headers.connection]).toEqual([200, 'answer to /slow', 'close']);
		// a new connection is refused: the load balancer sends the request elsewhere
		await expect(get(port, new Agent(), '/late')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
		await expect.poll(() => closed).toBe(true);
	});

	it('closes at once a connection idle for longer than a client takes to send its next request, and the others when that time is out', async () => {
		const { drain, clock, port } = await serve();
		const long = new Agent({ keepAlive: true });
		const short = new Agent({ keepAlive: true });
		await get(port, long, '/a');
		clock.now += RECENTLY_ANSWERED_MS;
		await get(port, short, '/b');
		const [longSocket] = Object.values(long.freeSockets).flat();
		const [shortSocket] = Object.values(short.freeSockets).flat();
		let closed = false;
		drain.stop(() => (closed = true));
		await once(longSocket!, 'close');
		expect(shortSocket!.destroyed).toBe(false);
		// the short one's time runs out on the real clock: the drain's timer, not the test clock, decides it
		await once(shortSocket!, 'close');
		await expect.poll(() => closed).toBe(true);
	});
});
