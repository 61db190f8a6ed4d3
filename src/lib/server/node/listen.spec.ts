import { describe, expect, it } from 'vitest';
import { readListenOptions } from './listen';

function read(env: Record<string, string | undefined>) {
	const problems: string[] = [];
	return { options: readListenOptions(env, problems), problems };
}

describe('where and how the HTTP server listens (docs/operations.md "The server process")', () => {
	it("reads adapter-node's variables: a socket or a host and port, timeouts in seconds", () => {
		expect(read({})).toEqual({
			options: {
				socketPath: null,
				host: '0.0.0.0',
				port: 3000,
				keepAliveTimeoutMs: null,
				headersTimeoutMs: null,
				shutdownTimeoutMs: 30_000
			},
			problems: []
		});
		expect(
			read({ HOST: '127.0.0.1', PORT: '8080', KEEP_ALIVE_TIMEOUT: '60', HEADERS_TIMEOUT: '0', SHUTDOWN_TIMEOUT: '5', LISTEN_PID: '0' })
		).toEqual({
			options: {
				socketPath: null,
				host: '127.0.0.1',
				port: 8080,
				keepAliveTimeoutMs: 60_000,
				headersTimeoutMs: 0,
				shutdownTimeoutMs: 5_000
			},
			problems: []
		});
		expect(read({ SOCKET_PATH: '/run/inbox.sock' }).options.socketPath).toBe('/run/inbox.sock');
	});

	it('names each variable that is not a port or a number of seconds', () => {
		expect(read({ PORT: '70000', KEEP_ALIVE_TIMEOUT: '1.5', HEADERS_TIMEOUT: '-1', SHUTDOWN_TIMEOUT: '30s' }).problems).toEqual([
			'PORT must be an integer from 1 to 65535, got "70000"',
			'KEEP_ALIVE_TIMEOUT must be a whole number of seconds, got "1.5"',
			'HEADERS_TIMEOUT must be a whole number of seconds, got "-1"',
			'SHUTDOWN_TIMEOUT must be a whole number of seconds, got "30s"'
		]);
		expect(read({ PORT: '0' }).problems).toEqual(['PORT must be an integer from 1 to 65535, got "0"']);
	});

	it("refuses systemd's socket activation instead of listening somewhere else", () => {
		expect(read({ LISTEN_PID: '4242', LISTEN_FDS: '1', IDLE_TIMEOUT: '60' }).problems).toEqual([
			expect.stringMatching(/^LISTEN_PID is set, but the inbox's server does not take its socket from systemd/),
			expect.stringMatching(/^LISTEN_FDS is set/),
			expect.stringMatching(/^IDLE_TIMEOUT is set/)
		]);
	});
});
