/**
 * Login rate limiting (docs/inbox-api.md §2): failures counted per client address and per username in
 * a sliding window; over the limit, login answers `429 RATE_LIMITED` with the seconds to wait. Kept in
 * the memory of each server process.
 */

export interface ThrottleLimits {
	windowMs: number;
	perAddress: number;
	perUsername: number;
}

export const DEFAULT_LOGIN_LIMITS: ThrottleLimits = { windowMs: 15 * 60_000, perAddress: 20, perUsername: 5 };

export class LoginThrottle {
	private readonly failures = new Map<string, number[]>();

	constructor(private readonly limits: ThrottleLimits = DEFAULT_LOGIN_LIMITS) {}

	private recent(key: string, now: number): number[] {
		const kept = (this.failures.get(key) ?? []).filter((at) => at > now - this.limits.windowMs);
		if (kept.length) this.failures.set(key, kept);
		else this.failures.delete(key);
		return kept;
	}

	/** Seconds to wait before another attempt, or 0 when one is allowed now. */
	retryAfterSeconds(address: string, username: string, now: number): number {
		const waits = [
			[this.recent(`a:${address}`, now), this.limits.perAddress],
			[this.recent(`u:${username.toLowerCase()}`, now), this.limits.perUsername]
		].map(([times, limit]) => {
			const list = times as number[];
			if (list.length < (limit as number)) return 0;
			return Math.ceil((list[list.length - (limit as number)] + this.limits.windowMs - now) / 1000);
		});
		return Math.max(0, ...waits);
	}

	recordFailure(address: string, username: string, now: number): void {
		for (const key of [`a:${address}`, `u:${username.toLowerCase()}`]) this.failures.set(key, [...this.recent(key, now), now]);
		if (this.failures.size > 100_000) this.failures.clear(); // a flood of random names must not exhaust memory
	}

	recordSuccess(username: string): void {
		this.failures.delete(`u:${username.toLowerCase()}`);
	}
}
