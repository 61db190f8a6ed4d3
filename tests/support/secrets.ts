/**
 * Node-side helpers of the key store tests: opening a backup file with libsodium directly, from its
 * documented format (not with the key store's own code), and the spellings under which a secret
 * could leak into storage.
 */
import sodium from 'libsodium-wrappers-sumo';

function fromB64u(text: string): Uint8Array {
	return new Uint8Array(Buffer.from(text, 'base64url'));
}

/** The secret key inside a backup file: Argon2id of the passphrase, then XChaCha20-Poly1305 with the record's AD. */
export async function openBackup(
	text: string,
	passphrase: string
): Promise<{ secretKey: Uint8Array; publicKey: Uint8Array; kind: string }> {
	await sodium.ready;
	const backup = JSON.parse(text);
	const key = sodium.crypto_pwhash(
		32,
		new TextEncoder().encode(passphrase.normalize('NFC')),
		fromB64u(backup.kdf.salt),
		backup.kdf.opslimit,
		backup.kdf.memlimit,
		sodium.crypto_pwhash_ALG_ARGON2ID13
	);
	const ad = `inbox-keystore|v1|${backup.kind}|${backup.publicKey}`;
	const secretKey = sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(null, fromB64u(backup.box), ad, fromB64u(backup.nonce), key);
	return { secretKey, publicKey: fromB64u(backup.publicKey), kind: backup.kind };
}

/** Every way the secret (and each of its 16-byte halves) could be written: hex, base64url, base64, raw bytes as Latin-1. */
export function spellings(secret: Uint8Array): string[] {
	const pieces = [secret, ...Array.from({ length: Math.floor(secret.length / 16) }, (_, i) => secret.subarray(i * 16, i * 16 + 16))];
	return pieces.flatMap((piece) => {
		const buffer = Buffer.from(piece);
		return [buffer.toString('hex'), buffer.toString('base64url'), buffer.toString('base64').replace(/=+$/, ''), buffer.toString('latin1')];
	});
}

/** The spellings of `secret` found in `haystack`. */
export function leaks(haystack: string, secret: Uint8Array): string[] {
	return spellings(secret).filter((spelling) => haystack.includes(spelling));
}
