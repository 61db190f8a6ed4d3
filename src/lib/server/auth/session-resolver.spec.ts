import { describe, expect, it } from 'vitest';
import { useDatabases } from '$test-support/databases';
import { createAccount } from '../db/accounts';
import { SESSION_CACHE_MS } from './session-cache';
import { SessionResolver } from './session-resolver';
import { createSession, deleteSession, hashToken } from './sessions';

const start = Date.UTC(2026, 10, 1, 8);

describe('the session resolver of a process (docs/operations.md "Several processes")', () => {
	const databases = useDatabases('PGlite');

	it('keeps a session a few seconds, drops it at once when it ends anywhere, and looks up no odd token', async () => {
		const db = await databases.open();
		let now = start;
		const resolver = await SessionResolver.start(db, () => now);
		const { accountId } = await createAccount(
			db,
			{ username: 'ada', displayName: 'Ada', role: 'agent', passwordHash: 'h' },
			new Date(start)
		);
		const { token } = await createSession(db, accountId, new Date(start));

		expect(await resolver.resolve(undefined)).toBeUndefined();
		expect(await resolver.resolve('')).toBeUndefined();
		expect(await resolver.resolve(token + 'x'.repeat(100))).toBeUndefined();
		expect((await resolver.resolve(token))?.account.accountId).toBe(accountId);

		// Deleted behind the resolver's back (no NOTIFY): the cached session holds until the cache expires.
		await db.query('delete from sessions where token_hash = $1', [hashToken(token)]);
		now += 1_000;
		expect((await resolver.resolve(token))?.tokenHash).toBe(hashToken(token));
		now += SESSION_CACHE_MS;
		expect(await resolver.resolve(token)).toBeUndefined();

		// Ended through deleteSession (a NOTIFY to every process): gone from the cache at once.
		const second = await createSession(db, accountId, new Date(now));
		expect(await resolver.resolve(second.token)).toBeDefined();
		await deleteSession(db, second.token);
		await expect.poll(() => resolver.resolve(second.token)).toBeUndefined();
		await resolver.stop();
	});
});
