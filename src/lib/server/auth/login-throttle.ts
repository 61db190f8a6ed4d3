/**
 * Login rate limiting (docs/inbox-api.md §2; docs/threat-model.md, "An outsider"): every attempt is
 * counted in the database BEFORE its password is verified, as a failure until it succeeds, per username
 * and per client address in a sliding window; at most a few verifications of one username or address
 * run at once. Over a limit, login answers `429 RATE_LIMITED` with the seconds to wait. The counters
 * live in the database so every inbox process shares one allowance, and attempts of one username or
 * address are decided one at a time (transaction-scoped advisory locks): sending attempts at once, or
 * to several processes, gains nothing.
 */
import type { Database, Queryable } from '../db/database';
import { deleteInBatches } from '../db/retention';

export interface ThrottleLimits {
	windowMs: number;
	perAddress: number;
	perUsername: number;
	/** Verifications of one username (of one address) running at once. */
	inFlightPerUsername: number;
	inFlightPerAddress: number;
	/** An attempt not finished after this long (its process died) no longer holds a slot; it stays a failure. */
	inFlightMs: number;
}

export const DEFAULT_LOGIN_LIMITS: ThrottleLimits = {
	windowMs: 15 * 60_000,
	perAddress: 20,
	perUsername: 5,
	inFlightPerUsername: 2,
	inFlightPerAddress: 4,
	inFlightMs: 30_000
};

export type AttemptDecision = { attemptId: string } | { retryAfterSeconds: number };

/** Any constants shared by every process: the lock spaces of usernames and addresses. */
const USERNAME_LOCK = 7_270_511;
const ADDRESS_LOCK = 7_270_512;

interface Counts {
	failures: Date[];
	inFlight: number;
}

export class LoginThrottle {
	constructor(
		private readonly db: Database,
		private readonly limits: ThrottleLimits = DEFAULT_LOGIN_LIMITS
	) {}

	/**
	 * Counts an attempt before its verification, or says how long to wait. The caller verifies the
	 * password only with an `attemptId`, then calls `finish`.
	 */
	async begin(address: string, username: string, now: Date): Promise<AttemptDecision> {
		const name = username.toLowerCase();
		return this.db.transaction(async (tx) => {
			// Always username first, then address: two attempts never wait for each other's lock in reverse.
			await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [USERNAME_LOCK, name]);
			await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [ADDRESS_LOCK, address]);
			const byName = await this.counts(tx, 'username', name, now);
			const byAddress = await this.counts(tx, 'address', address, now);
			const wait = Math.max(
				this.waitFor(byName.failures, this.limits.perUsername, now),
				this.waitFor(byAddress.failures, this.limits.perAddress, now),
				byName.inFlight >= this.limits.inFlightPerUsername || byAddress.inFlight >= this.limits.inFlightPerAddress ? 1 : 0
			);
			if (wait > 0) return { retryAfterSeconds: wait };
			const [row] = await tx.query<{ attempt_id: string }>(
				'insert into login_attempts (username, address, started_at) values ($1, $2, $3) returning attempt_id::text',
				[name, address, now]
			);
			return { attemptId: row.attempt_id };
		});
	}

	/** Ends a verification. A success forgets the username's failures (not the address's). */
	async finish(attemptId: string, username: string, succeeded: boolean, now: Date): Promise<void> {
		if (succeeded) {
			await this.db.query('delete from login_attempts where username = $1 and (succeeded is not true or attempt_id = $2)', [
				username.toLowerCase(),
				attemptId
			]);
		} else {
			await this.db.query('update login_attempts set finished_at = $2, succeeded = false where attempt_id = $1', [attemptId, now]);
		}
	}

	/** Deletes attempts older than the window (maintenance). */
	async prune(now: Date): Promise<void> {
		const expiry = { table: 'login_attempts', key: 'attempt_id', expired: 'started_at < $1' };
		await deleteInBatches(this.db, expiry, new Date(now.getTime() - this.limits.windowMs));
	}

	private async counts(tx: Queryable, column: 'username' | 'address', value: string, now: Date): Promise<Counts> {
		const since = new Date(now.getTime() - this.limits.windowMs);
		const stale = new Date(now.getTime() - this.limits.inFlightMs);
		const rows = await tx.query<{ started_at: Date; finished_at: Date | null }>(
			`select started_at, finished_at from login_attempts
			 where ${column} = $1 and started_at > $2 and succeeded is not true order by started_at desc`,
			[value, since]
		);
		return {
			failures: rows.map((row) => new Date(row.started_at)),
			inFlight: rows.filter((row) => row.finished_at === null && new Date(row.started_at) > stale).length
		};
	}

	/** Seconds until fewer than `limit` of `failures` (newest first) are in the window; 0 below the limit. */
	private waitFor(failures: Date[], limit: number, now: Date): number {
		if (failures.length < limit) return 0;
		return Math.max(1, Math.ceil((failures[limit - 1].getTime() + this.limits.windowMs - now.getTime()) / 1000));
	}
}
