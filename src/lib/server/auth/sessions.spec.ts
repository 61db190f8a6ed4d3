import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { createAccount, lastActivity, setAccountDisabled } from '../db/accounts';
import type { Database } from '../db/database';
import { SESSION_ENDED_CHANNEL } from '../db/live-events';
import {
	createSession,
	deleteExpiredSessions,
	deleteSession,
	deleteSessionsOf,
	hashToken,
	resolveSession,
	resolveSessionByHash,
	SESSION_IDLE_MS,
	SESSION_MAX_MS
} from './sessions';

const HOUR = 3600_000;
const start = new Date(Date.UTC(2026, 10, 1, 8));
const at = (ms: number) => new Date(start.getTime() + ms);

describe.each(BACKENDS)('sessions on %s (docs/inbox-api.md §2)', (backend) => {
	const databases = useDatabases(backend);
	let db: Database;
	let accounts = 0;

	beforeAll(async () => {
		db = await databases.open();
	}, 60_000);

	async function account(): Promise<string> {
		const username = `session${++accounts}`;
		return (await createAccount(db, { username, displayName: username, role: 'agent', passwordHash: 'h' }, start)).accountId;
	}

	const storedRow = async (token: string) =>
		(
			await db.query<{ token_hash: string; expires_at: Date; last_seen_at: Date }>(
				'select token_hash, expires_at, last_seen_at from sessions where token_hash = $1',
				[hashToken(token)]
			)
		)[0];

	it('keeps only the SHA-256 of a random 32-byte token, which expires 12 hours after login', async () => {
		const accountId = await account();
		const { token, expiresAt } = await createSession(db, accountId, start);
		expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
		expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
		expect(expiresAt).toEqual(at(SESSION_IDLE_MS));
		const row = await storedRow(token);
		expect(row.token_hash).toBe(hashToken(token));
		expect(JSON.stringify(await db.query('select * from sessions'))).not.toContain(token);
		expect(new Date(row.expires_at)).toEqual(expiresAt);
		expect((await lastActivity(db)).get(accountId)).toEqual(start);
		const other = await createSession(db, accountId, start);
		expect(other.token).not.toBe(token);
	});

	it('resolves until 12 idle hours, sliding forward on use at most once a minute, and never beyond 7 days after login', async () => {
		const accountId = await account();
		const { token } = await createSession(db, accountId, start);

		const soon = await resolveSession(db, token, at(60_000));
		expect(soon).toMatchObject({ tokenHash: hashToken(token), expiresAt: at(SESSION_IDLE_MS), account: { accountId } });
		expect(new Date((await storedRow(token)).last_seen_at)).toEqual(start);

		const later = await resolveSession(db, token, at(60_001));
		expect(later?.expiresAt).toEqual(at(60_001 + SESSION_IDLE_MS));
		expect(new Date((await storedRow(token)).expires_at)).toEqual(at(60_001 + SESSION_IDLE_MS));
		expect((await lastActivity(db)).get(accountId)).toEqual(at(60_001));

		// used every 11 hours it lives on, but not past 7 days after login
		let now = 60_001;
		while (now + 11 * HOUR < SESSION_MAX_MS) {
			now += 11 * HOUR;
			expect(await resolveSession(db, token, at(now)), String(now)).toBeDefined();
		}
		expect((await resolveSession(db, token, at(SESSION_MAX_MS - 1)))?.expiresAt).toEqual(at(SESSION_MAX_MS));
		expect(await resolveSession(db, token, at(SESSION_MAX_MS))).toBeUndefined();

		const idle = await createSession(db, accountId, start);
		expect(await resolveSession(db, idle.token, at(SESSION_IDLE_MS - 1))).toBeDefined();
		expect(await resolveSession(db, idle.token, at(2 * SESSION_IDLE_MS))).toBeUndefined();
	});

	it('resolves nothing for an unknown, empty, oversized or expired token, nor for a disabled account', async () => {
		const accountId = await account();
		const { token } = await createSession(db, accountId, start);
		expect(await resolveSession(db, undefined, start)).toBeUndefined();
		expect(await resolveSession(db, '', start)).toBeUndefined();
		expect(await resolveSession(db, 'x'.repeat(101), start)).toBeUndefined();
		expect(await resolveSession(db, `${token}x`, start)).toBeUndefined();
		expect(await resolveSession(db, token, at(SESSION_IDLE_MS))).toBeUndefined();

		const fresh = await createSession(db, accountId, start);
		expect(await resolveSessionByHash(db, hashToken(fresh.token), start)).toMatchObject({ account: { accountId } });
		await setAccountDisabled(db, accountId, start);
		expect(await resolveSession(db, fresh.token, at(1))).toBeUndefined();
		expect(await resolveSessionByHash(db, hashToken(fresh.token), at(1))).toBeUndefined();
		await setAccountDisabled(db, accountId, null);
		expect(await resolveSession(db, fresh.token, at(1))).toBeDefined();
	});

	it('resolving by hash does not slide the expiry: an open stream alone does not keep a session alive', async () => {
		const { token } = await createSession(db, await account(), start);
		const byHash = await resolveSessionByHash(db, hashToken(token), at(2 * HOUR));
		expect(byHash?.expiresAt).toEqual(at(SESSION_IDLE_MS));
		expect(new Date((await storedRow(token)).expires_at)).toEqual(at(SESSION_IDLE_MS));
		expect(await resolveSessionByHash(db, hashToken(token), at(SESSION_IDLE_MS))).toBeUndefined();
	});

	it('ending a session, every session of an account, or the expired ones, tells every process which ended', async () => {
		const notified: (string | null)[] = [];
		const stop = await db.listen(SESSION_ENDED_CHANNEL, (payload) => notified.push(payload));
		try {
			const first = await account();
			const second = await account();
			const one = await createSession(db, first, start);
			const two = await createSession(db, first, start);
			const kept = await createSession(db, second, start);

			await deleteSession(db, one.token);
			expect(await resolveSession(db, one.token, start)).toBeUndefined();
			await expect.poll(() => notified).toEqual([hashToken(one.token)]);

			await deleteSessionsOf(db, first);
			expect(await resolveSession(db, two.token, start)).toBeUndefined();
			await expect.poll(() => notified).toEqual([hashToken(one.token), hashToken(two.token)]);
			expect(await resolveSession(db, kept.token, start)).toBeDefined();

			const old = await createSession(db, second, start);
			await deleteExpiredSessions(db, at(SESSION_IDLE_MS));
			expect(await storedRow(old.token)).toBeUndefined();
			expect(await storedRow(kept.token)).toBeUndefined();
			const young = await createSession(db, second, at(HOUR));
			await deleteExpiredSessions(db, at(SESSION_IDLE_MS));
			expect(await storedRow(young.token)).toBeDefined();
		} finally {
			await stop();
		}
	});
});
