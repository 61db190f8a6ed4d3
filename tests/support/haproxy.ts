/**
 * Debian's HAProxy running `docs/haproxy.cfg` as it is (docs/operations.md "Behind a load balancer"): the
 * addresses come from the environment variables the file names, and the state of each inbox process as
 * HAProxy sees it comes from its runtime API (`show stat`) on a Unix socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, waitForUrl, type RunningProcess } from '../../src/cli/stack/processes';
import { HAPROXY_PATH } from './prerequisites';

export const HAPROXY_CONFIG = join(process.cwd(), 'docs', 'haproxy.cfg');

/** What HAProxy says of a server (`show stat`'s `status`): `UP`, `DOWN`, and `UP 1/2`-like ones while it changes. */
export type ServerStatus = string;

export interface RunningHaproxy {
	/** Where the inbox is reached through HAProxy. */
	url: string;
	process: RunningProcess;
	/** Every line HAProxy printed (one per request, and each change of a server's state). */
	log: readonly string[];
	/** The status of each server of the `inbox` backend, by name (`inbox-1`, `inbox-2`). */
	serverStatus(): Promise<Record<string, ServerStatus>>;
	/** Polls until `server` has `status`. */
	waitForServer(server: string, status: 'UP' | 'DOWN', timeoutMs?: number): Promise<void>;
	/**
	 * What an operator does through the runtime API: `maint` takes `server` out of both backends at once
	 * (no request goes to it, no check can mark it down); `ready` puts it back, healthy at once rather
	 * than after its checks rise again.
	 */
	setServerState(server: string, state: 'maint' | 'ready'): Promise<void>;
	stop(): Promise<void>;
}

/** Sends one command to HAProxy's runtime API and returns its whole answer. */
function runtimeCommand(socket: string, command: string): Promise<string> {
	return new Promise((resolve, reject) => {
		let answer = '';
		const connection = createConnection(socket, () => connection.end(`${command}\n`));
		connection.setEncoding('utf8');
		connection.on('data', (chunk: string) => (answer += chunk));
		connection.on('end', () => resolve(answer));
		connection.on('error', reject);
	});
}

export async function startHaproxy(options: {
	frontPort: number;
	servers: readonly [string, string];
	checkInterval: string;
}): Promise<RunningHaproxy> {
	const directory = mkdtempSync(join(tmpdir(), 'inbox-haproxy-'));
	const socket = join(directory, 'admin.sock');
	const url = `http://127.0.0.1:${options.frontPort}`;
	const log: string[] = [];
	const child = startProcess(
		'haproxy',
		HAPROXY_PATH,
		['-db', '-f', HAPROXY_CONFIG],
		{
			INBOX_FRONT: `127.0.0.1:${options.frontPort}`,
			INBOX_1: options.servers[0],
			INBOX_2: options.servers[1],
			HAPROXY_RUNTIME_SOCKET: socket,
			CHECK_INTERVAL: options.checkInterval
		},
		{ onLine: (line) => log.push(line) }
	);
	// HAProxy answers its runtime API only once it listens on every address, and the front is then its own
	const frontOpen = async () => {
		try {
			return /^inbox,FRONTEND,.*,OPEN,/m.test(await runtimeCommand(socket, 'show stat'));
		} catch {
			return false;
		}
	};
	await waitForUrl(`${url}/api/health`, [child], 20_000, frontOpen);
	const serverStatus = async () => {
		const [header, ...rows] = (await runtimeCommand(socket, 'show stat')).trim().split('\n');
		const columns = header.replace(/^# /, '').split(',');
		const statuses: Record<string, ServerStatus> = {};
		for (const row of rows) {
			const cells = row.split(',');
			const cell = (name: string) => cells[columns.indexOf(name)];
			if (cell('pxname') === 'inbox' && cell('svname').startsWith('inbox-')) statuses[cell('svname')] = cell('status');
		}
		return statuses;
	};
	return {
		url,
		process: child,
		log,
		serverStatus,
		async waitForServer(server, status, timeoutMs = 30_000) {
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const now = (await serverStatus())[server];
				if (now === status) return;
				if (Date.now() > deadline) throw new Error(`HAProxy still says ${server} is ${now}, not ${status}`);
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
		},
		async setServerState(server, state) {
			const commands =
				state === 'maint'
					? [`set server inbox/${server} state maint`]
					: [`set server inbox/${server} state ready`, `set server inbox/${server} health up`];
			for (const command of commands) {
				const answer = (await runtimeCommand(socket, command)).trim();
				if (answer !== '') throw new Error(`HAProxy refused "${command}": ${answer}`);
			}
		},
		async stop() {
			await child.stop();
			rmSync(directory, { recursive: true, force: true });
		}
	};
}
