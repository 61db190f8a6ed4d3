/**
 * Leases with fencing tokens, for work that any of several inbox processes may take (docs/operations.md
 * "Several processes"): a claim holds for a short time, is renewed while the work goes on, and carries a
 * random token; every write of the work checks that its lease still holds, so a process that paused past
 * its lease and resumes changes nothing once another process took the work over.
 */
import { randomUUID } from 'node:crypto';
import { ContractError } from '../../errors';

/** A claim: its fencing token and how long it holds before another process may take the work. */
/** How long a claim holds by default (`WORK_LEASE_MS`, docs/operations.md "Several processes"). */
export const DEFAULT_LEASE_MS = 15_000;

export interface Lease {
	token: string;
	ms: number;
}

export function newLease(ms: number): Lease {
	return { token: randomUUID(), ms };
}

/** The lease passed to another process (it ran out): whatever the holder did in its transaction is rolled back. */
export class LeaseLostError extends ContractError {
	constructor(what: string) {
		super('STATE_CONFLICT', `the lease on ${what} is lost`);
	}
}

/**
 * Renews `lease` every third of its time while the work goes on; `renew` answers whether it still holds.
 * `onLost` is told once it does not, `onError` when a renewal failed (the next one tries again). Returns
 * the function that stops renewing.
 */
export function renewWhileWorking(
	lease: Lease,
	renew: () => Promise<boolean>,
	handlers: { onLost?: () => void; onError: (error: unknown) => void }
): () => void {
	const timer = setInterval(() => {
		renew().then(
			(held) => {
				if (!held) handlers.onLost?.();
			},
			(error) => handlers.onError(error)
		);
	}, lease.ms / 3);
	return () => clearInterval(timer);
}
