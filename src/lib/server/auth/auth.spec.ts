import { describe, expect, it } from 'vitest';
import { PasswordHasher } from './passwords';
import { SessionCache } from './session-cache';
import type { Session } from './sessions';

describe('password hashes (Argon2id, crypto_pwhash_str)', () => {
	it('hashes with Argon2id at the interactive limits and verifies only the right password', async () => {
		const hasher = new PasswordHasher();
		try {
			const hash = await hasher.hash('correct horse battery staple');
			expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,t=2,p=1\$/);
			expect(await hasher.hash('correct horse battery staple')).not.toBe(hash);
			expect(await hasher.verify(hash, 'correct horse battery staple')).toBe(true);
			expect(await hasher.verify(hash, 'correct horse battery stapler')).toBe(false);
			expect(await hasher.verify('$2b$10$notargon', 'x')).toBe(false);
			expect(await hasher.verifyNothing('anything')).toBe(false);
		} finally {
			await hasher.close();
		}
	});

	it('several hashes in flight each get their own answer', async () => {
		const hasher = new PasswordHasher();
		try {
			const passwords = ['one password', 'two password', 'three password'];
			const hashes = await Promise.all(passwords.map((password) => hasher.hash(password)));
			const checks = await Promise.all(hashes.map((hash, i) => hasher.verify(hash, passwords[(i + 1) % 3])));
			expect(checks).toEqual([false, false, false]);
			expect(await Promise.all(hashes.map((hash, i) => hasher.verify(hash, passwords[i])))).toEqual([true, true, true]);
		} finally {
			await hasher.close();
		}
	});
});

describe('the password hashing worker', () => {
	it('rejects what is in flight when it stops, and starts again for the next call', async () => {
		const hasher = new PasswordHasher();
		try {
			const inFlight = hasher.hash('a password in flight');
			const alsoInFlight = hasher.verify('$argon2id$v=19$m=65536,t=2,p=1$AAAA$AAAA', 'x');
			await hasher.close();
			await expect(inFlight).rejects.toThrow('the password hashing worker stopped');
			await expect(alsoInFlight).rejects.toThrow('the password hashing worker stopped');
			const hash = await hasher.hash('after a restart');
			expect(await hasher.verify(hash, 'after a restart')).toBe(true);
		} finally {
			await hasher.close();
		}
	});
});

describe('session cache', () => {
	const session = (tokenHash: string, accountId: string, expiresAt: number) =>
		({ tokenHash, expiresAt: new Date(expiresAt), account: { accountId } }) as unknown as Session;

	it('keeps a session for its time to live, never past the session expiry, and drops it on logout or account change', () => {
		const cache = new SessionCache(10_000);
		cache.set(session('t1', 'a1', 1_000_000), 0);
		cache.set(session('t2', 'a1', 5_000), 0);
		cache.set(session('t3', 'a2', 1_000_000), 0);
		expect(cache.get('t1', 9_999)?.tokenHash).toBe('t1');
		expect(cache.get('t1', 10_000)).toBeUndefined();
		expect(cache.get('t2', 5_000)).toBeUndefined();
		cache.set(session('t1', 'a1', 1_000_000), 20_000);
		cache.dropAccount('a1');
		expect(cache.get('t1', 20_001)).toBeUndefined();
		expect(cache.get('t3', 5_000)?.tokenHash).toBe('t3');
		cache.dropToken('t3');
		expect(cache.get('t3', 5_001)).toBeUndefined();
	});
});
