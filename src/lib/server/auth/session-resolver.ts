/**
 * The session of a request's cookie (docs/inbox-api.md §2): looked up in the database, kept a few
 * seconds in this process's cache (auth/session-cache.ts), and dropped from every process's cache at
 * once when it ends anywhere (a NOTIFY on `SESSION_ENDED_CHANNEL`).
 */
import type { Database } from '../db/database';
import { SESSION_ENDED_CHANNEL } from '../db/live-events';
import { SessionCache } from './session-cache';
import { hashToken, resolveSession, type Session } from './sessions';

/** Longer than any token the server hands out: looked up no further. */
const MAX_TOKEN_LENGTH = 100;

export class SessionResolver {
	private constructor(
		private readonly db: Database,
		private readonly now: () => number,
		readonly cache: SessionCache,
		private readonly stopListening: () => Promise<void>
	) {}

	static async start(db: Database, now: () => number): Promise<SessionResolver> {
		const cache = new SessionCache();
		const stopListening = await db.listen(SESSION_ENDED_CHANNEL, (tokenHash) => {
			if (tokenHash) cache.dropToken(tokenHash);
		});
		return new SessionResolver(db, now, cache, stopListening);
	}

	/** The live session of `token`, or undefined for none, an unknown, expired or ended one, or a disabled account. */
	async resolve(token: string | undefined): Promise<Session | undefined> {
		// Stryker disable next-line all: equivalent: resolveSession refuses the same tokens; this only spares hashing them
		if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
		const cached = this.cache.get(hashToken(token), this.now());
		if (cached) return cached;
		const resolved = await resolveSession(this.db, token, new Date(this.now()));
		if (resolved) this.cache.set(resolved, this.now());
		return resolved;
	}

	stop(): Promise<void> {
		return this.stopListening();
	}
}
