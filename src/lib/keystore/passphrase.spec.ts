import { beforeAll, describe, expect, it } from 'vitest';
import { initCrypto } from '../crypto/sodium';
import {
	isWeakerThanDefaults,
	openWithPassphrase,
	PASSPHRASE_KDF_DEFAULTS,
	requireNewPassphrase,
	sealWithPassphrase,
	validatePassphraseKdf,
	type PassphraseSealed
} from './passphrase';
import { codeOfCall } from '$test-support/error-codes';

describe('the passphrase layer (Argon2id + XChaCha20-Poly1305)', () => {
	const secret = new Uint8Array(32).map((_, i) => i * 7);
	const context = 'inbox-keystore|v1|agent|publicKey';
	let sealed: PassphraseSealed;

	beforeAll(async () => {
		await initCrypto();
		sealed = sealWithPassphrase(secret, 'Caf\u00e9 au lait, please', context);
	});

	it('uses at least OWASP minimum parameters and a fresh salt each time', () => {
		expect(sealed.kdf).toMatchObject({
			algorithm: 'argon2id13',
			opslimit: PASSPHRASE_KDF_DEFAULTS.opslimit,
			memlimit: PASSPHRASE_KDF_DEFAULTS.memlimit
		});
		expect(PASSPHRASE_KDF_DEFAULTS.opslimit).toBeGreaterThanOrEqual(2);
		expect(PASSPHRASE_KDF_DEFAULTS.memlimit).toBeGreaterThanOrEqual(19 * 1024 * 1024);
		const again = sealWithPassphrase(secret, 'Caf\u00e9 au lait, please', context);
		expect(again.kdf.salt).not.toBe(sealed.kdf.salt);
		expect(again.box).not.toBe(sealed.box);
	});

	it('opens with the same passphrase, also typed in decomposed Unicode (NFC)', () => {
		expect(openWithPassphrase(sealed, 'Caf\u00e9 au lait, please', context)).toEqual(secret);
		expect(openWithPassphrase(sealed, 'Cafe\u0301 au lait, please', context)).toEqual(secret);
	});

	it('a wrong passphrase, or the box of another record, is WRONG_PASSPHRASE', () => {
		expect(codeOfCall(() => openWithPassphrase(sealed, 'cafe au lait, please', context))).toBe('WRONG_PASSPHRASE');
		expect(codeOfCall(() => openWithPassphrase(sealed, 'Caf\u00e9 au lait, please', 'inbox-keystore|v1|signing|publicKey'))).toBe(
			'WRONG_PASSPHRASE'
		);
	});

	it('refuses stored parameters below the OWASP minimum or beyond what a tab can afford, before deriving', () => {
		const weak = { ...sealed, kdf: { ...sealed.kdf, opslimit: 1 } };
		expect(codeOfCall(() => openWithPassphrase(weak, 'Caf\u00e9 au lait, please', context))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => validatePassphraseKdf({ ...sealed.kdf, memlimit: 8 * 1024 * 1024 }))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => validatePassphraseKdf({ ...sealed.kdf, memlimit: 2 ** 31 }))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => validatePassphraseKdf({ ...sealed.kdf, salt: 'AAAA' }))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => validatePassphraseKdf({ ...sealed.kdf, algorithm: 'scrypt' }))).toBe('INVALID_INPUT');
		expect(validatePassphraseKdf({ ...sealed.kdf, extra: true })).toEqual(sealed.kdf);
	});

	it('says when a wrap is weaker than today parameters', () => {
		expect(isWeakerThanDefaults(sealed.kdf)).toBe(false);
		expect(isWeakerThanDefaults({ ...sealed.kdf, opslimit: 2 })).toBe(true);
		expect(isWeakerThanDefaults({ ...sealed.kdf, memlimit: 19 * 1024 * 1024 })).toBe(true);
	});

	it('a new passphrase has 8 to 1024 characters, counted as code points', () => {
		expect(codeOfCall(() => requireNewPassphrase('seven77'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => requireNewPassphrase('🔑🔑🔑🔑🔑🔑🔑'))).toBe('INVALID_INPUT');
		expect(requireNewPassphrase('🔑🔑🔑🔑🔑🔑🔑🔑')).toBe('🔑🔑🔑🔑🔑🔑🔑🔑');
		expect(codeOfCall(() => requireNewPassphrase('x'.repeat(1025)))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => requireNewPassphrase(12345678))).toBe('INVALID_INPUT');
	});

	it('names what is wrong in every refusal', () => {
		expect(requireNewPassphrase('x'.repeat(1024))).toHaveLength(1024);
		expect(() => requireNewPassphrase('x'.repeat(1025))).toThrow('passphrase must be at most 1024 characters');
		expect(() => requireNewPassphrase('seven77')).toThrow('passphrase must be at least 8 characters, got 7');
		expect(() => requireNewPassphrase(12345678)).toThrow('passphrase must be a string');
		expect(() => openWithPassphrase(sealed, 12345678 as never, context)).toThrow('passphrase must be a string');
		expect(() => openWithPassphrase(sealed, 'a\ud800b', context)).toThrow('passphrase contains a lone surrogate');
		expect(() => validatePassphraseKdf(undefined)).toThrow('kdf algorithm must be argon2id13');
		expect(() => validatePassphraseKdf({ ...sealed.kdf, opslimit: 2.5 })).toThrow(/^kdf opslimit must be an integer from \d+ to \d+$/);
		expect(() => validatePassphraseKdf({ ...sealed.kdf, memlimit: 1 })).toThrow(/^kdf memlimit must be an integer from \d+ to \d+$/);
		expect(() => validatePassphraseKdf({ ...sealed.kdf, salt: 'AAAA' })).toThrow('kdf salt must be 16 bytes, got 3');
		expect(() => openWithPassphrase({ ...sealed, nonce: 'AAAA' }, 'Caf\u00e9 au lait, please', context)).toThrow(
			'nonce must be 24 bytes, got 3'
		);
		expect(() => openWithPassphrase({ ...sealed, box: '!' }, 'Caf\u00e9 au lait, please', context)).toThrow(/^box is not base64url/);
		expect(() => openWithPassphrase(sealed, 'wrong passphrase', context)).toThrow('the passphrase does not open this key');
	});
});
