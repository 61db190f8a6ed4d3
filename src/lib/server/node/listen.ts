/**
 * How the inbox's HTTP server listens and stops (docs/operations.md "The server process"), from the
 * variables adapter-node's own server reads: `SOCKET_PATH`, else `HOST` and `PORT`; `KEEP_ALIVE_TIMEOUT`
 * and `HEADERS_TIMEOUT` in seconds (Node's defaults when unset); `SHUTDOWN_TIMEOUT` in seconds (30 when
 * unset), after which a stopping server closes the connections still open. systemd's socket activation
 * (`LISTEN_PID`, `LISTEN_FDS`, `IDLE_TIMEOUT`) is refused, not ignored: the server would listen elsewhere.
 */

export interface ListenOptions {
	/** A Unix socket to listen on instead of `host` and `port`. */
	socketPath: string | null;
	host: string;
	port: number;
	keepAliveTimeoutMs: number | null;
	headersTimeoutMs: number | null;
	shutdownTimeoutMs: number;
}

type Env = Record<string, string | undefined>;

function readPort(value: string | undefined, problems: string[]): number {
	if (value === undefined || value === '') return 3000;
	if (!/^[0-9]{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 65535) {
		problems.push(`PORT must be an integer from 1 to 65535, got ${JSON.stringify(value)}`);
		return 0;
	}
	return Number(value);
}

function readMilliseconds(env: Env, name: string, problems: string[]): number | null {
	const value = env[name];
	if (value === undefined || value === '') return null;
	if (!/^[0-9]{1,9}$/.test(value)) {
		problems.push(`${name} must be a whole number of seconds, got ${JSON.stringify(value)}`);
		return null;
	}
	return Number(value) * 1000;
}

export function readListenOptions(env: Env, problems: string[]): ListenOptions {
	for (const name of ['LISTEN_PID', 'LISTEN_FDS', 'IDLE_TIMEOUT']) {
		if (env[name] && env[name] !== '0') {
			problems.push(`${name} is set, but the inbox's server does not take its socket from systemd: set SOCKET_PATH, or HOST and PORT`);
		}
	}
	return {
		socketPath: env.SOCKET_PATH || null,
		host: env.HOST || '0.0.0.0',
		port: readPort(env.PORT, problems),
		keepAliveTimeoutMs: readMilliseconds(env, 'KEEP_ALIVE_TIMEOUT', problems),
		headersTimeoutMs: readMilliseconds(env, 'HEADERS_TIMEOUT', problems),
		shutdownTimeoutMs: readMilliseconds(env, 'SHUTDOWN_TIMEOUT', problems) ?? 30_000
	};
}
