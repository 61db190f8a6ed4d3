/**
 * Serves a fetch-style handler (`(Request) => Promise<Response>`) over real HTTP with node:http, so a
 * part of the server can be tested on the wire without the whole application around it.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

export interface ServedHandler {
	url: string;
	close(): Promise<void>;
}

function toRequest(incoming: IncomingMessage, origin: string): Request {
	const headers = new Headers();
	for (const [name, value] of Object.entries(incoming.headers)) {
		if (Array.isArray(value)) for (const item of value) headers.append(name, item);
		else if (value !== undefined) headers.set(name, value);
	}
	const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
	return new Request(new URL(incoming.url ?? '/', origin), {
		method: incoming.method,
		headers,
		body: hasBody ? (Readable.toWeb(incoming) as ReadableStream) : undefined,
		duplex: 'half'
	} as RequestInit);
}

export async function serveHandler(handler: (request: Request) => Promise<Response>): Promise<ServedHandler> {
	let origin = '';
	const server = createServer(async (incoming, outgoing) => {
		try {
			const response = await handler(toRequest(incoming, origin));
			const body = Buffer.from(await response.arrayBuffer());
			// A body the handler refused unread cannot be drained any more: close this connection after answering.
			const unread = !incoming.readableEnded;
			outgoing.writeHead(response.status, { ...Object.fromEntries(response.headers), ...(unread ? { connection: 'close' } : {}) });
			outgoing.end(body, () => {
				if (unread) incoming.socket.destroy();
			});
		} catch (error) {
			outgoing.writeHead(500, { 'content-type': 'text/plain' });
			outgoing.end(String(error));
		}
	});
	// Longer than the client's idle keep-alive, so a reused connection is never closed under a request.
	server.keepAliveTimeout = 60_000;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return {
		url: origin,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			})
	};
}
