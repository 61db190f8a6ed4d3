/**
 * Whether a process of this machine is alive, for the locks and claims that name their owner by pid
 * (docs/operations.md "The server process"): one that has ended (a crash) leaves a lock to take over.
 */
export function isProcessAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: alive, run by another user
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}
