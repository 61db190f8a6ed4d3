/**
 * Free ports for the processes of a local stack (README.md, "Running the inbox server"), claimed so that
 * two stacks on one machine never get the same one. A port found by listening on port 0 is free only
 * until something else listens there: the kernel hands the same port to the next caller of `listen(0)`,
 * in this process or another, and a process started with it later then fails to bind, or worse, a
 * client reaches another stack that answers on it. So a port is taken below the kernel's ephemeral range
 * (which `listen(0)` and outgoing connections use, never these), and claimed with a file made exclusively
 * in one directory every process on the machine shares. A claim lasts as long as the process that made
 * it; the claim of a process that has ended is taken over.
 */
import { mkdirSync, openSync, closeSync, readFileSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../../lib/server/node/process-alive';

/** How many ports below the ephemeral range claims are made from. */
const CLAIMABLE_PORTS = 12_000;

export interface PortClaims {
	/** Where the claim files are. */
	directory: string;
	/** The first and last port claimed from. */
	range: readonly [number, number];
	/** Whether the process with this id is alive. */
	isAlive: (pid: number) => boolean;
	pid: number;
}

/** The first port of the kernel's ephemeral range (Linux's setting; its default elsewhere). */
function ephemeralStart(): number {
	try {
		const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
		if (Number.isInteger(first) && first > 1024) return first;
	} catch {
		// not Linux: the IANA range's start, which other kernels use
	}
	return 49_152;
}

export function machinePortClaims(): PortClaims {
	const end = ephemeralStart() - 1;
	return {
		directory: join(tmpdir(), 'inbox-port-claims'),
		range: [Math.max(1025, end - CLAIMABLE_PORTS + 1), end],
		isAlive: isProcessAlive,
		pid: process.pid
	};
}

/** Makes the claim file of `port` for `claims.pid`; false when a live process holds it. */
function claim(claims: PortClaims, port: number): boolean {
	const file = join(claims.directory, String(port));
	for (;;) {
		try {
			const fd = openSync(file, 'wx');
			writeSync(fd, String(claims.pid));
			closeSync(fd);
			return true;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		let holder: number;
		try {
			holder = Number(readFileSync(file, 'utf8'));
		} catch {
			continue; // released between the two calls: try again
		}
		// a file just made and not yet written reads as 0: its maker is alive
		if (holder === 0 || claims.isAlive(holder)) return false;
		try {
			unlinkSync(file);
		} catch {
			// another process took the stale claim over first; the next try sees its claim
		}
	}
}

/** Whether nothing listens on `port` of 127.0.0.1 (any other program on the machine). */
function canListen(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = createServer();
		server.unref();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** A port no other claimer on the machine holds and nothing listens on, claimed for this process. */
export async function freePort(claims: PortClaims = machinePortClaims()): Promise<number> {
	mkdirSync(claims.directory, { recursive: true });
	const [first, last] = claims.range;
	const size = last - first + 1;
	const start = Math.floor(Math.random() * size);
	for (let offset = 0; offset < size; offset++) {
		const port = first + ((start + offset) % size);
		// a port something else listens on stays claimed, so that no claimer tries it again
		if (claim(claims, port) && (await canListen(port))) return port;
	}
	throw new Error(`no free port left in ${first}–${last} (claims in ${claims.directory})`);
}

/** The ports `pid` has claimed (for tests and for finding who holds a port). */
export function claimedBy(claims: PortClaims, pid: number): number[] {
	return readdirSync(claims.directory)
		.filter((name) => {
			try {
				return Number(readFileSync(join(claims.directory, name), 'utf8')) === pid;
			} catch {
				return false;
			}
		})
		.map(Number)
		.sort((a, b) => a - b);
}
