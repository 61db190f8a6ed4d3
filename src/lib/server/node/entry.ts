/**
 * `node build`: the inbox's HTTP server (docs/operations.md "The server process"), written as
 * `build/index.js` in place of adapter-node's (node/adapter.js). Each request gets the base security
 * headers before adapter-node's handler runs (node/request-listener.ts, docs/inbox-api.md §1), so that
 * static files, `_app` assets and SvelteKit's answers made before the hooks carry them too. The rest is
 * what adapter-node's server does: listen on SOCKET_PATH or HOST and PORT with its timeouts
 * (node/listen.ts), and on SIGTERM or SIGINT stop accepting, close idle connections, finish the requests
 * under way (the others are closed after SHUTDOWN_TIMEOUT), then emit `sveltekit:shutdown`, on which the
 * inbox closes (runtime.ts).
 */
import { rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadConfig } from '../config';
import { handler } from './handler.js';
import { requestListener } from './request-listener';

// The `init` hook has loaded and checked the same configuration, and stopped the process on a problem.
const { listen, storageOrigins } = loadConfig(process.env, { durableStore: true });

const server = createServer(requestListener(handler, storageOrigins));
if (listen.keepAliveTimeoutMs !== null) server.keepAliveTimeout = listen.keepAliveTimeoutMs;
if (listen.headersTimeoutMs !== null) server.headersTimeout = listen.headersTimeoutMs;

if (listen.socketPath) {
	// a socket file left by a process that is gone would refuse the new one
	if (statSync(listen.socketPath, { throwIfNoEntry: false })?.isSocket()) rmSync(listen.socketPath);
	server.listen(listen.socketPath, () => console.log(`Listening on ${listen.socketPath}`));
} else server.listen(listen.port, listen.host, () => console.log(`Listening on http://${listen.host}:${listen.port}`));

let stopping: NodeJS.Timeout | undefined;

function stop(reason: NodeJS.Signals): void {
	if (stopping) return;
	// close() alone waits for idle keep-alive connections to time out
	server.closeIdleConnections();
	server.close(() => {
		clearTimeout(stopping);
		process.emit('sveltekit:shutdown' as NodeJS.Signals, reason);
	});
	stopping = setTimeout(() => server.closeAllConnections(), listen.shutdownTimeoutMs);
}

server.on('request', (request) => {
	// while stopping, a connection closes as soon as its request is answered
	request.on('close', () => {
		if (stopping) server.closeIdleConnections();
	});
});
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
