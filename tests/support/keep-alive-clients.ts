/**
 * Clients that send requests back to back, each over its own kept-alive connection, as a load balancer's
 * pool does (docs/operations.md "Stopping a process"): what each request got is kept, an answer or the
 * network's error, so a test can tell an answer, a refusal and a cut apart.
 */
import { Agent, request as httpRequest } from 'node:http';

export interface Outcome {
	path: string;
	/** Sent on a connection an earlier request had used. */
	reusedSocket: boolean;
	status?: number;
	/** The answer's `Connection` header. */
	connection?: string;
	body?: string;
	/** The network's error code when no answer came (ECONNREFUSED, ECONNRESET, …). */
	error?: string;
}

function send(url: string, agent: Agent, path: string, headers: Record<string, string>): Promise<Outcome> {
	return new Promise((resolve) => {
		const outgoing = httpRequest(`${url}${path}`, { agent, headers }, (response) => {
			let body = '';
			response.setEncoding('utf8').on('data', (chunk) => (body += chunk));
			response.on('end', () =>
				resolve({ path, reusedSocket: outgoing.reusedSocket, status: response.statusCode, connection: response.headers.connection, body })
			);
			response.on('error', (error: NodeJS.ErrnoException) =>
				resolve({ path, reusedSocket: outgoing.reusedSocket, error: error.code ?? error.message })
			);
		});
		outgoing.on('error', (error: NodeJS.ErrnoException) =>
			resolve({ path, reusedSocket: outgoing.reusedSocket, error: error.code ?? error.message })
		);
		outgoing.end();
	});
}

export interface KeepAliveClients {
	/** What each client's requests got, in order. */
	readonly outcomes: Outcome[][];
	/** Resolves once every client has stopped: after a request failed (the server is gone) or `stop()`. */
	readonly done: Promise<void>;
	stop(): void;
}

/** `count` clients, each sending `paths` in turn, back to back, until a request fails or `stop()`. */
export function startKeepAliveClients(
	url: string,
	options: { count: number; paths: readonly string[]; headers?: Record<string, string> }
): KeepAliveClients {
	let stopped = false;
	const outcomes: Outcome[][] = Array.from({ length: options.count }, () => []);
	const run = async (mine: Outcome[], offset: number) => {
		const agent = new Agent({ keepAlive: true, maxSockets: 1 });
		for (let n = offset; !stopped; n++) {
			const outcome = await send(url, agent, options.paths[n % options.paths.length], options.headers ?? {});
			mine.push(outcome);
			if (outcome.error) break;
		}
		agent.destroy();
	};
	return {
		outcomes,
		done: Promise.all(outcomes.map((mine, index) => run(mine, index))).then(() => undefined),
		stop: () => {
			stopped = true;
		}
	};
}
