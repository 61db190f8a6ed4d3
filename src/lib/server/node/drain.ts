/**
 * How the HTTP server stops under load (docs/operations.md "Stopping a process"): it stops listening, so a
 * new connection is refused (what every load balancer retries elsewhere); every answer from then on says
 * `Connection: close`, also those of requests already under way, so each kept-alive connection ends with
 * its next answer; a request that arrives on an old connection is served, not refused, since the load
 * balancer sent it before it could know, and an error for it would reach the client. An idle connection
 * is closed at once, unless it answered within RECENTLY_ANSWERED_MS: its client may be sending the next
 * request on it at this moment, and closing it under that request would cut it; such a connection is
 * closed when that time runs out, or after answering that request.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/** How long after its last answer an idle connection may still be carrying its client's next request. */
export const RECENTLY_ANSWERED_MS = 1_000;

export class ConnectionDrain {
	#stopping = false;
	/** Answers not finished yet. */
	readonly #answering = new Set<ServerResponse>();
	/** Connections without a request, with the time of their last answer (or of their opening). */
	readonly #idleSince = new Map<Socket, number>();
	readonly #closing = new Map<Socket, ReturnType<typeof setTimeout>>();

	constructor(
		private readonly server: Server,
		private readonly now: () => number = () => performance.now()
	) {
		server.on('connection', (socket: Socket) => {
			this.#idleSince.set(socket, this.now());
			socket.once('close', () => {
				this.#idleSince.delete(socket);
				clearTimeout(this.#closing.get(socket));
				this.#closing.delete(socket);
			});
		});
		// before the request listener, which may answer at once (a static file)
		server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => this.#admit(request.socket, response));
	}

	get stopping(): boolean {
		return this.#stopping;
	}

	/**
	 * Stops listening and ends every connection as said above; `closed` runs once the last one is gone.
	 * Node's `server.close()` would close the idle connections at once, the recent ones included.
	 */
	stop(closed: () => void): void {
		if (this.#stopping) return;
		this.#stopping = true;
		NetServer.prototype.close.call(this.server, () => closed());
		for (const response of this.#answering) if (!response.headersSent) response.setHeader('connection', 'close');
		for (const socket of this.#idleSince.keys()) this.#closeWhenQuiet(socket);
	}

	#admit(socket: Socket, response: ServerResponse): void {
		this.#idleSince.delete(socket);
		clearTimeout(this.#closing.get(socket));
		this.#closing.delete(socket);
		this.#answering.add(response);
		if (this.#stopping) response.setHeader('connection', 'close');
		response.once('close', () => {
			this.#answering.delete(response);
			if (socket.destroyed) return;
			this.#idleSince.set(socket, this.now());
			// an answer whose headers went out before the stop (a live stream) left its connection open
			if (this.#stopping) this.#closeWhenQuiet(socket);
		});
	}

	#closeWhenQuiet(socket: Socket): void {
		const wait = (this.#idleSince.get(socket) ?? 0) + RECENTLY_ANSWERED_MS - this.now();
		if (wait <= 0) {
			socket.destroy();
			return;
		}
		this.#closing.set(
			socket,
			setTimeout(() => {
				if (this.#idleSince.has(socket)) socket.destroy();
			}, wait)
		);
	}
}
