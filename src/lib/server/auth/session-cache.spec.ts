import { describe, expect, it } from 'vitest';
import type { Account } from '../db/accounts';
import { SessionCache } from './session-cache';
import type { Session } from './sessions';

const session = (tokenHash: string): Session => ({
	account: { accountId: `acc_${tokenHash}` } as Account,
	expiresAt: new Date(Date.UTC(2026, 10, 2)),
	tokenHash
});

describe('the session cache of a process', () => {
	it('holds at most 10,000 sessions: one more empties it, so a flood of logins cannot grow it', () => {
		const now = Date.UTC(2026, 10, 1);
		const cache = new SessionCache();
		for (let i = 0; i < 10_000; i++) cache.set(session(`h${i}`), now);
		expect([cache.get('h0', now)?.tokenHash, cache.get('h9999', now)?.tokenHash]).toEqual(['h0', 'h9999']);
		cache.set(session('h10000'), now);
		expect([cache.get('h0', now), cache.get('h9999', now), cache.get('h10000', now)?.tokenHash]).toEqual([undefined, undefined, 'h10000']);
	});
});
