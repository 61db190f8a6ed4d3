/**
 * `node build`: the inbox's HTTP server (docs/operations.md "The server process"), written as
 * `build/index.js` in place of adapter-node's (node/adapter.js). Everything the process prints is a JSON
 * line of the log (docs/operations.md "Logs"): `console` goes to it before adapter-node's handler is
 * loaded (node/console.ts). Each request gets its id, the base security headers and its line in the log
 * (node/request-listener.ts, docs/inbox-api.md §1), so that static files, `_app` assets and SvelteKit's
 * answers made before the hooks carry them too. It listens on SOCKET_PATH or HOST and PORT with their
 * timeouts (node/listen.ts), and on SIGTERM or SIGINT drains (node/drain.ts; docs/operations.md "Stopping
 * a process"): the requests under way finish (those still open after SHUTDOWN_TIMEOUT are closed), then
 * `sveltekit:shutdown` is emitted, on which the inbox closes (runtime.ts).
 */
import { rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadConfig } from '../config';
import { errorText, rootLog } from '../log';
import { routeConsoleToLog } from './console';
import { ConnectionDrain } from './drain';
import { requestListener } from './request-listener';

const log = rootLog();
routeConsoleToLog(log);
// Node would print these itself, as text: the process ends as it would have, with a line of the log.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
	process.on(event, (error) => {
		log.fatal({ reason: error instanceof Error ? error.stack : errorText(error) }, event);
		process.exit(1);
	});
}

// Loaded only now (esbuild would hoist a static import above the lines above): it runs the `init` hook,
// which loads and checks the same configuration and stops the process on a problem.
const { handler } = await import('./handler.js');
const { listen, storageOrigins } = loadConfig(process.env, { durableStore: true });

const server = createServer(requestListener(handler, { storageOrigins, log }));
if (listen.keepAliveTimeoutMs !== null) server.keepAliveTimeout = listen.keepAliveTimeoutMs;
if (listen.headersTimeoutMs !== null) server.headersTimeout = listen.headersTimeoutMs;
const drain = new ConnectionDrain(server);

if (listen.socketPath) {
	// a socket file left by a process that is gone would refuse the new one
	if (statSync(listen.socketPath, { throwIfNoEntry: false })?.isSocket()) rmSync(listen.socketPath);
	server.listen(listen.socketPath, () => log.info({ socket: listen.socketPath }, 'listening'));
} else server.listen(listen.port, listen.host, () => log.info({ address: `http://${listen.host}:${listen.port}` }, 'listening'));

function stop(signal: NodeJS.Signals): void {
	if (drain.stopping) return;
	log.info({ signal }, 'stopping: new connections are refused, every answer closes its connection');
	const closeAll = setTimeout(() => server.closeAllConnections(), listen.shutdownTimeoutMs);
	drain.stop(() => {
		clearTimeout(closeAll);
		log.info('every connection is closed');
		process.emit('sveltekit:shutdown' as NodeJS.Signals, signal);
	});
}

process.on('SIGTERM', stop);
process.on('SIGINT', stop);
