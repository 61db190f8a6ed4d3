import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { initCrypto, sodium } from '../../crypto/sodium';
import { PasswordHasher } from './passwords';

describe('password hashes (Argon2id in a worker thread)', () => {
	const hasher = new PasswordHasher();
	afterAll(() => hasher.close());
	afterEach(() => vi.restoreAllMocks());

	it('verifies an Argon2id hash of the password, and nothing else', async () => {
		const hash = await hasher.hash('correct horse');
		expect(hash.startsWith('$argon2id$')).toBe(true);
		expect([await hasher.verify(hash, 'correct horse'), await hasher.verify(hash, 'wrong horse')]).toEqual([true, false]);
		expect(await hasher.verifyNothing('correct horse')).toBe(false);
	});

	it('never signs in with a hash of another Argon2 variant, even one libsodium would verify (argon2i)', async () => {
		await initCrypto();
		const s = sodium();
		const salt = s.randombytes_buf(16);
		const [ops, mem] = [3, s.crypto_pwhash_MEMLIMIT_INTERACTIVE]; // argon2i needs at least 3 passes
		const key = s.crypto_pwhash(32, 'correct horse', salt, ops, mem, s.crypto_pwhash_ALG_ARGON2I13);
		const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64').replace(/=+$/, '');
		const argon2i = `$argon2i$v=19$m=${mem / 1024},t=${ops},p=1$${b64(salt)}$${b64(key)}`;
		expect(s.crypto_pwhash_str_verify(argon2i, 'correct horse')).toBe(true);
		expect(await hasher.verify(argon2i, 'correct horse')).toBe(false);
	});

	it('a request the worker cannot serve fails alone, with the worker’s reason', async () => {
		await expect(hasher.hash(42 as unknown as string)).rejects.toThrow(/^password hashing failed: ./);
		expect(await hasher.verify(await hasher.hash('still works'), 'still works')).toBe(true);
	});

	it('keeps the process alive only while a request waits', async () => {
		let referenced: boolean | undefined;
		const ref = Worker.prototype.ref;
		const unref = Worker.prototype.unref;
		vi.spyOn(Worker.prototype, 'ref').mockImplementation(function (this: Worker) {
			referenced = true;
			ref.call(this);
		});
		vi.spyOn(Worker.prototype, 'unref').mockImplementation(function (this: Worker) {
			referenced = false;
			unref.call(this);
		});
		const first = hasher.hash('first');
		const second = hasher.hash('second');
		await first;
		expect(referenced).toBe(true);
		await second;
		expect(referenced).toBe(false);
	});
});
