import { beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { createAccount } from '../db/accounts';
import type { Database } from '../db/database';
import { DEFAULT_CAPS, UsageCounter } from '../usage/caps';
import { createSession, deleteSession, hashToken } from './sessions';
import { currentUnlockShare, dropUnlockShare, keepUnlockShare, UNLOCK_SHARE_BYTES, UNLOCK_SHARE_GRACE_MS } from './unlock-share';

const start = new Date(Date.UTC(2026, 10, 26, 9));
const at = (ms: number) => new Date(start.getTime() + ms);

describe.each(BACKENDS)('the unlock share of a browser session on %s (docs/threat-model.md "A stolen laptop")', (backend) => {
	const databases = useDatabases(backend);
	let db: Database;
	let usage: UsageCounter;
	let accounts = 0;

	beforeAll(async () => {
		db = await databases.open();
		usage = new UsageCounter(db, DEFAULT_CAPS);
	}, 60_000);

	async function session(): Promise<{ token: string; tokenHash: string; accountId: string }> {
		const username = `unlocker${++accounts}`;
		const { accountId } = await createAccount(db, { username, displayName: username, role: 'agent', passwordHash: 'h' }, start);
		const { token } = await createSession(db, accountId, start);
		return { token, tokenHash: hashToken(token), accountId };
	}

	it('is 32 random bytes per session, the same for every tab that asks while one is open, and gone at lock', async () => {
		const first = await session();
		const other = await session();
		expect(await currentUnlockShare(db, first.tokenHash, start)).toBeNull();
		const share = await keepUnlockShare(db, first.tokenHash, start);
		expect(share).toHaveLength(UNLOCK_SHARE_BYTES);
		expect(await keepUnlockShare(db, first.tokenHash, at(1000))).toEqual(share);
		expect(await currentUnlockShare(db, first.tokenHash, at(2000))).toEqual(share);
		const othersShare = await keepUnlockShare(db, other.tokenHash, start);
		expect(othersShare).not.toEqual(share);

		await dropUnlockShare(db, first.tokenHash);
		expect(await currentUnlockShare(db, first.tokenHash, at(3000))).toBeNull();
		const next = await keepUnlockShare(db, first.tokenHash, at(4000));
		expect(next).not.toEqual(share);
		expect(await currentUnlockShare(db, other.tokenHash, at(4000))).toEqual(othersShare);
	});

	it('lives while a tab keeps its live stream, survives a reload, and ends once the browser is closed', async () => {
		const { tokenHash, accountId } = await session();
		const share = await keepUnlockShare(db, tokenHash, start);
		const stream = await usage.openStream(accountId, tokenHash, start);
		// an open tab refreshes its stream: the share holds long after it was made
		for (let minute = 1; minute <= 10; minute++) await usage.refreshStream(stream, at(minute * 60_000));
		expect(await currentUnlockShare(db, tokenHash, at(10 * 60_000 + 10_000))).toEqual(share);

		// a reload: the stream closes, the new page asks at once
		await usage.closeStream(stream, at(11 * 60_000));
		expect(await currentUnlockShare(db, tokenHash, at(11 * 60_000 + 3_000))).toEqual(share);

		// the browser closed: no tab for longer than the grace, and the share is dropped, not merely hidden
		const reopened = at(11 * 60_000 + UNLOCK_SHARE_GRACE_MS + 1000);
		expect(await currentUnlockShare(db, tokenHash, reopened)).toBeNull();
		const [row] = await db.query<{ unlock_share: Uint8Array | null }>('select unlock_share from sessions where token_hash = $1', [
			tokenHash
		]);
		expect(row.unlock_share).toBeNull();
		expect(await keepUnlockShare(db, tokenHash, reopened)).not.toEqual(share);
	});

	it('ends sooner after the last tab closed when the operator sets a shorter grace', async () => {
		const { tokenHash, accountId } = await session();
		const graceMs = 5_000;
		const share = await keepUnlockShare(db, tokenHash, start, graceMs);
		await usage.closeStream(await usage.openStream(accountId, tokenHash, start), at(1000));
		expect(await currentUnlockShare(db, tokenHash, at(1000 + graceMs - 1000), graceMs)).toEqual(share);
		expect(await currentUnlockShare(db, tokenHash, at(1000 + graceMs + 1000), graceMs)).toBeNull();
	});

	it('goes with the session at sign-out', async () => {
		const { token, tokenHash } = await session();
		await keepUnlockShare(db, tokenHash, start);
		await deleteSession(db, token);
		expect(await currentUnlockShare(db, tokenHash, at(1000))).toBeNull();
	});
});
