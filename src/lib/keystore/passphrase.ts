/**
 * The passphrase layer of the key store (primitives of contract 1 §3): a secret key sealed
 * with XChaCha20-Poly1305 IETF under a key derived from the passphrase with Argon2id
 * (`crypto_pwhash`). The same sealed form is the content of an exported backup file.
 */
import { b64uDecode, b64uDecodeLength, b64uEncode, utf8Encode } from '../crypto/encoding';
import { fail } from '../errors';
import { isIntegerIn, KEY_BYTES, NONCE_BYTES } from '../crypto/rules';
import { sodium } from '../crypto/sodium';

/**
 * Argon2id parameters for new wraps: 3 passes over 64 MiB, one lane (libsodium's only choice).
 * OWASP's minimum is 19 MiB with 2 passes; this is stronger on both axes and takes about 0.35 s
 * in libsodium's WASM build, once per unlock.
 */
export const PASSPHRASE_KDF_DEFAULTS = { algorithm: 'argon2id13', opslimit: 3, memlimit: 64 * 1024 * 1024 } as const;

/** What a backup file may ask for: at least OWASP's minimum, at most what a browser tab can afford. */
export const PASSPHRASE_KDF_LIMITS = {
	minOpslimit: 2,
	maxOpslimit: 16,
	minMemlimit: 19 * 1024 * 1024,
	maxMemlimit: 1024 * 1024 * 1024
} as const;

export const MIN_PASSPHRASE_LENGTH = 8;
export const MAX_PASSPHRASE_LENGTH = 1024;
const SALT_BYTES = 16;

export interface PassphraseKdf {
	algorithm: 'argon2id13';
	opslimit: number;
	/** Bytes. */
	memlimit: number;
	/** b64u of 16 bytes. */
	salt: string;
}

/** A secret sealed under a passphrase; every byte string is b64u. */
export interface PassphraseSealed {
	kdf: PassphraseKdf;
	/** 24 bytes. */
	nonce: string;
	/** XChaCha20-Poly1305 IETF ciphertext of the secret, tag included. */
	box: string;
}

/** Passphrases are compared as the UTF-8 of their NFC form, so the same words typed anywhere match. */
function passphraseBytes(passphrase: unknown): Uint8Array {
	if (typeof passphrase !== 'string') fail('INVALID_INPUT', 'passphrase must be a string');
	return utf8Encode(passphrase.normalize('NFC'), 'passphrase');
}

/** The rules for a new passphrase (creating a key, changing the passphrase). */
export function requireNewPassphrase(passphrase: unknown): string {
	if (typeof passphrase !== 'string') fail('INVALID_INPUT', 'passphrase must be a string');
	const length = [...passphrase.normalize('NFC')].length;
	if (length < MIN_PASSPHRASE_LENGTH)
		fail('INVALID_INPUT', `passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters, got ${length}`);
	if (length > MAX_PASSPHRASE_LENGTH) fail('INVALID_INPUT', `passphrase must be at most ${MAX_PASSPHRASE_LENGTH} characters`);
	return passphrase;
}

/** Checks KDF parameters read from storage or a backup file before spending memory on them. */
export function validatePassphraseKdf(value: unknown): PassphraseKdf {
	const kdf = (value ?? {}) as Record<string, unknown>;
	if (kdf.algorithm !== 'argon2id13') fail('INVALID_INPUT', 'kdf algorithm must be argon2id13');
	const { minOpslimit, maxOpslimit, minMemlimit, maxMemlimit } = PASSPHRASE_KDF_LIMITS;
	if (!isIntegerIn(kdf.opslimit, minOpslimit, maxOpslimit))
		fail('INVALID_INPUT', `kdf opslimit must be an integer from ${minOpslimit} to ${maxOpslimit}`);
	if (!isIntegerIn(kdf.memlimit, minMemlimit, maxMemlimit))
		fail('INVALID_INPUT', `kdf memlimit must be an integer from ${minMemlimit} to ${maxMemlimit}`);
	b64uDecodeLength(kdf.salt, SALT_BYTES, 'kdf salt');
	return { algorithm: 'argon2id13', opslimit: kdf.opslimit, memlimit: kdf.memlimit, salt: kdf.salt as string };
}

function deriveKey(passphrase: unknown, kdf: PassphraseKdf): Uint8Array {
	const lib = sodium();
	const password = passphraseBytes(passphrase);
	try {
		return lib.crypto_pwhash(
			KEY_BYTES,
			password,
			// Stryker disable next-line all: equivalent: the salt is fresh or was checked by validatePassphraseKdf, so this decoding cannot fail
			b64uDecode(kdf.salt, 'kdf salt'),
			kdf.opslimit,
			kdf.memlimit,
			lib.crypto_pwhash_ALG_ARGON2ID13
		);
		// Stryker disable next-line all: equivalent: wipes this call's own copy of the passphrase, which nothing reads afterwards
	} finally {
		password.fill(0);
	}
}

/** True when a wrap was made with weaker parameters than today's, so unlocking should re-seal it. */
export function isWeakerThanDefaults(kdf: PassphraseKdf): boolean {
	return kdf.opslimit < PASSPHRASE_KDF_DEFAULTS.opslimit || kdf.memlimit < PASSPHRASE_KDF_DEFAULTS.memlimit;
}

/**
 * Seals `secret` under the passphrase with a fresh salt and nonce. `context` is the additional
 * data (kind and public key of the record), so a box moved to another record does not open.
 */
export function sealWithPassphrase(secret: Uint8Array, passphrase: string, context: string): PassphraseSealed {
	const lib = sodium();
	const kdf: PassphraseKdf = { ...PASSPHRASE_KDF_DEFAULTS, salt: b64uEncode(lib.randombytes_buf(SALT_BYTES)) };
	const key = deriveKey(passphrase, kdf);
	try {
		const nonce = lib.randombytes_buf(NONCE_BYTES);
		const box = lib.crypto_aead_xchacha20poly1305_ietf_encrypt(secret, utf8Encode(context), null, nonce, key);
		return { kdf, nonce: b64uEncode(nonce), box: b64uEncode(box) };
		// Stryker disable next-line all: equivalent: wipes this call's own derived key, which nothing reads afterwards
	} finally {
		key.fill(0);
	}
}

/** Opens a sealed secret; a wrong passphrase (or a box of another record) is `WRONG_PASSPHRASE`. */
export function openWithPassphrase(sealed: PassphraseSealed, passphrase: string, context: string): Uint8Array {
	const kdf = validatePassphraseKdf(sealed.kdf);
	const nonce = b64uDecodeLength(sealed.nonce, NONCE_BYTES, 'nonce');
	const box = b64uDecode(sealed.box, 'box');
	const key = deriveKey(passphrase, kdf);
	try {
		return sodium().crypto_aead_xchacha20poly1305_ietf_decrypt(null, box, utf8Encode(context), nonce, key);
	} catch {
		return fail('WRONG_PASSPHRASE', 'the passphrase does not open this key');
		// Stryker disable next-line all: equivalent: wipes this call's own derived key, which nothing reads afterwards
	} finally {
		key.fill(0);
	}
}
