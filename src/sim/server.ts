/**
 * The service simulator's HTTP server (plain `node:http`): `/v1` as the contract says (sections 4,
 * 5.1, 7.3), the presigned object storage, webhook delivery (5.2, 6), the control API `/_sim/*` and
 * the customer page. `startSimulator()` runs it in-process (tests, the demo launcher); main.ts runs it
 * as its own process.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContractError, initCrypto } from '../lib/crypto/index';
import { appPage } from './app/page';
import { SimClock, SimTimers } from './clock';
import type { SimContext } from './context';
import { handleControl, isLoopback } from './control/handler';
import { sendError, sendJson } from './http/io';
import { SimPersistence } from './persistence';
import { newStore } from './snapshot';
import { handleStorage } from './storage';
import { V1Handler } from './v1/handler';
import { WebhookDispatcher } from './webhooks/delivery';

export interface SimulatorOptions {
	/** 0 (the default) picks a free port. */
	port?: number;
	/** Interface to listen on; the loopback interface by default. */
	host?: string;
	/** When set, the state is kept in `dataDir` (docs/simulator.md, "Persistence") and survives a restart. */
	dataDir?: string;
	/** Origin clients use to reach the simulator (invitation links, presigned URLs); derived from host and port by default. */
	publicUrl?: string;
}

export interface RunningSimulator {
	/** The simulator's origin, e.g. `http://127.0.0.1:8787`. */
	url: string;
	/** The simulated clock, for in-process tests (the same as `POST /_sim/clock`). */
	clock: SimClock;
	/** Resolves when no webhook attempt is queued or running. */
	webhooksIdle(): Promise<void>;
	/** Writes the changes now (when a data directory is set). */
	flush(): Promise<void>;
	/** Stops listening, stops deliveries and writes the last changes. */
	close(): Promise<void>;
}

function originOf(host: string, port: number): string {
	const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
	return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

function sendHtml(response: ServerResponse, html: string): void {
	response.writeHead(200, {
		'content-type': 'text/html; charset=utf-8',
		'cache-control': 'no-store',
		'x-content-type-options': 'nosniff',
		'referrer-policy': 'no-referrer',
		'x-frame-options': 'DENY'
	});
	response.end(html);
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
	await initCrypto();
	const host = options.host ?? '127.0.0.1';
	const persistence = options.dataDir ? new SimPersistence(options.dataDir, { beforeCompaction: () => v1.prune() }) : null;
	const store = persistence ? await persistence.load() : newStore();
	const clock = new SimClock();
	const timers = new SimTimers(clock);
	const webhooks = new WebhookDispatcher(store, clock, timers);

	// The request handler is attached once the port, and so the public URL, is known.
	const server = createServer();
	// Longer than any client's idle keep-alive (fetch keeps a socket 4 s; Node's server closes it after 5 s
	// by default), so that a busy client never sends a request on a connection being closed under it.
	server.keepAliveTimeout = 65_000;
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const port = (server.address() as AddressInfo).port;
	const publicUrl = (options.publicUrl ?? originOf(host, port)).replace(/\/+$/, '');
	const ctx: SimContext = { store, clock, timers, webhooks, publicUrl };
	const v1 = new V1Handler(ctx);

	const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
		const url = new URL(request.url ?? '/', 'http://simulator.invalid');
		const path = url.pathname;
		if (path === '/v1' || path.startsWith('/v1/')) return v1.handle(request, response, url);
		if (path.startsWith('/_storage/') && (await handleStorage(ctx, request, response, url))) return;
		if (request.method === 'GET' && (path === '/_sim/app' || /^\/invite\/[A-Za-z0-9_-]+$/.test(path))) {
			if (!isLoopback(request)) throw new ContractError('FORBIDDEN', 'the customer page is served on loopback only');
			return sendHtml(response, appPage());
		}
		if (path.startsWith('/_sim/')) return handleControl(ctx, request, response, url);
		if (path === '/' && request.method === 'GET') {
			return sendJson(response, {
				status: 200,
				body: { service: 'Service simulator', api: `${publicUrl}/v1`, customerApp: `${publicUrl}/_sim/app` }
			});
		}
		throw new ContractError('NOT_FOUND', `nothing at ${path}`);
	};
	server.on('request', (request: IncomingMessage, response: ServerResponse) => {
		void route(request, response).catch((error) => sendError(response, error));
	});
	webhooks.resume();

	let closing: Promise<void> | undefined;
	return {
		url: publicUrl,
		clock,
		webhooksIdle: () => webhooks.idle(),
		flush: async () => {
			await persistence?.flush();
		},
		close: () =>
			(closing ??= (async () => {
				webhooks.close();
				timers.stop();
				await new Promise<void>((resolve) => {
					server.close(() => resolve());
					server.closeAllConnections();
				});
				await webhooks.idle();
				await persistence?.close();
			})())
	};
}
