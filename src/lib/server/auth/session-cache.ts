/**
 * Recently resolved sessions kept in memory for a few seconds, so that a busy page's API calls (the
 * signing proxy above all) do not each wait for a database lookup. A logout anywhere drops the session at
 * once (its NOTIFY reaches every process); other account changes are seen within the time to live.
 */
import type { Session } from './sessions';

export const SESSION_CACHE_MS = 10_000;
const MAX_ENTRIES = 10_000;

export class SessionCache {
	private readonly entries = new Map<string, { session: Session; until: number }>();

	constructor(private readonly ttlMs = SESSION_CACHE_MS) {}

	get(tokenHash: string, now: number): Session | undefined {
		const entry = this.entries.get(tokenHash);
		if (!entry) return undefined;
		if (entry.until <= now || entry.session.expiresAt.getTime() <= now) {
			this.entries.delete(tokenHash);
			return undefined;
		}
		return entry.session;
	}

	set(session: Session, now: number): void {
		if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
		this.entries.set(session.tokenHash, { session, until: now + this.ttlMs });
	}

	dropToken(tokenHash: string): void {
		this.entries.delete(tokenHash);
	}

	/** The account changed (a key registered, a password set): its sessions are read again. */
	dropAccount(accountId: string): void {
		for (const [tokenHash, entry] of this.entries) if (entry.session.account.accountId === accountId) this.entries.delete(tokenHash);
	}
}
