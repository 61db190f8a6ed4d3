/**
 * CPU time of a process from /proc (Linux), for `npm run bench:server` (docs/operations.md "Throughput"):
 * what one acknowledged event costs the inbox's process, and waiting until a process has finished the
 * work a run left it (its webhook queue processed) before the next run starts.
 */
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** User and system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
	// After the command name in parentheses: state is field 3, utime and stime fields 14 and 15.
	const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
	return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** Resolves once the process used under 5% of a core over half a second, or after `limitMs`. */
export async function settle(pid: number, limitMs = 120_000): Promise<void> {
	const end = performance.now() + limitMs;
	let before = cpuSeconds(pid);
	while (performance.now() < end) {
		await new Promise((resolve) => setTimeout(resolve, 500));
		const now = cpuSeconds(pid);
		if (now - before < 0.025) return;
		before = now;
	}
}
