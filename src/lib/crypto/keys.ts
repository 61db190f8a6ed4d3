/**
 * Key pairs and fingerprints (contract 2.1, 2.2, 9.1): X25519 pairs from seeds
 * (sk = first 32 bytes of SHA-512(seed), pk = X25519(sk, 9)), Ed25519 in libsodium layout
 * seed(32) ‖ public(32), the pair checks done when loading, and the key-file line format.
 */
import { fail } from '../errors';
import { b64uDecode, b64uEncode, concatBytes, constantTimeEqual, hexEncode, utf8Encode } from './encoding';
import { DOMAIN, ED25519_SECRET_KEY_BYTES, KEY_BYTES, PUBLIC_KEY_BYTES, requireBytes } from './rules';
import { sodium } from './sodium';

export interface X25519KeyPair {
	publicKey: Uint8Array;
	secretKey: Uint8Array;
}

export interface Ed25519KeyPair {
	publicKey: Uint8Array;
	/** libsodium layout: seed(32) ‖ public(32). */
	secretKey: Uint8Array;
}

/** libsodium names the secret half `privateKey`; the contract and this code call it `secretKey`. */
function fromSodium(pair: { publicKey: Uint8Array; privateKey: Uint8Array }): { publicKey: Uint8Array; secretKey: Uint8Array } {
	return { publicKey: pair.publicKey, secretKey: pair.privateKey };
}

export function x25519KeyPairFromSeed(seed: Uint8Array): X25519KeyPair {
	requireBytes(seed, KEY_BYTES, 'seed');
	return fromSodium(sodium().crypto_box_seed_keypair(seed));
}

export function generateX25519KeyPair(): X25519KeyPair {
	return fromSodium(sodium().crypto_box_keypair());
}

/** X25519(secret, base point 9). */
export function x25519PublicKey(secretKey: Uint8Array): Uint8Array {
	requireBytes(secretKey, KEY_BYTES, 'X25519 secret key');
	return sodium().crypto_scalarmult_base(secretKey);
}

/** Checks that `publicKey` equals X25519(secretKey, 9), as contract 2.1 asks when loading. */
export function checkX25519KeyPair(pair: X25519KeyPair, what = 'X25519 key pair'): X25519KeyPair {
	requireBytes(pair.publicKey, PUBLIC_KEY_BYTES, `${what} public key`);
	if (!constantTimeEqual(x25519PublicKey(pair.secretKey), pair.publicKey)) {
		fail('INVALID_INPUT', `${what}: the public key is not X25519(secret key, 9)`);
	}
	return pair;
}

export function ed25519KeyPairFromSeed(seed: Uint8Array): Ed25519KeyPair {
	requireBytes(seed, KEY_BYTES, 'seed');
	return fromSodium(sodium().crypto_sign_seed_keypair(seed));
}

export function generateEd25519KeyPair(): Ed25519KeyPair {
	return fromSodium(sodium().crypto_sign_keypair());
}

/**
 * Checks a 64-byte libsodium Ed25519 secret key: its second half must be the public key of its
 * seed, and, when given, equal `expectedPublicKey` (e.g. the `signing.pub` the server holds).
 */
export function checkEd25519SecretKey(secretKey: Uint8Array, expectedPublicKey?: Uint8Array): Ed25519KeyPair {
	requireBytes(secretKey, ED25519_SECRET_KEY_BYTES, 'Ed25519 secret key');
	const derived = ed25519KeyPairFromSeed(secretKey.subarray(0, 32));
	if (!constantTimeEqual(derived.publicKey, secretKey.subarray(32))) {
		fail('INVALID_INPUT', 'Ed25519 secret key: its public half does not match its seed');
	}
	if (expectedPublicKey && !constantTimeEqual(derived.publicKey, expectedPublicKey)) {
		fail('INVALID_INPUT', 'Ed25519 secret key does not belong to the expected public key');
	}
	return derived;
}

/** `BLAKE2b-256(UTF8("Service|v1|fp|") ‖ publicKey)`, unkeyed (contract 2.2). */
export function fingerprint(publicKey: Uint8Array): Uint8Array {
	requireBytes(publicKey, PUBLIC_KEY_BYTES, 'public key');
	return sodium().crypto_generichash(32, concatBytes(utf8Encode(`${DOMAIN}|fp|`), publicKey), null);
}

/** The fingerprint as in an invitation link. */
export function fingerprintB64u(publicKey: Uint8Array): string {
	return b64uEncode(fingerprint(publicKey));
}

/** The fingerprint for people: lowercase hex in 16 groups of 4, separated by spaces. */
export function fingerprintDisplay(publicKey: Uint8Array): string {
	return hexEncode(fingerprint(publicKey)).replace(/(.{4})(?=.)/g, '$1 ');
}

/** A key file's content: one unpadded base64url line ending in `\n` (contract 2.1). */
export function formatKeyFile(bytes: Uint8Array): string {
	return `${b64uEncode(bytes)}\n`;
}

/** Reads a key file's text: trims, decodes strictly, requires the length; errors name the file. */
export function parseKeyFile(text: string, length: number, fileName: string): Uint8Array {
	let bytes: Uint8Array;
	try {
		bytes = b64uDecode(text.trim(), fileName);
	} catch {
		return fail('INVALID_INPUT', `${fileName}: not a single line of unpadded base64url`);
	}
	if (bytes.length !== length) fail('INVALID_INPUT', `${fileName}: must hold ${length} bytes, holds ${bytes.length}`);
	return bytes;
}
