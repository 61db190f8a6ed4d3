/**
 * The wire contract's error codes of the cryptographic routines (contract 7.1) and of webhook
 * verification (7.2). The error type that carries them, and every other code, is in `../errors.ts`.
 */

/** Codes raised by the cryptographic routines (contract 7.1). */
export const CRYPTO_CODES = [
	/** Invalid base64url, key or nonce length, id outside the id rule, invalid UTF-8, invalid meta field, invalid roster or rotation input. */
	'INVALID_INPUT',
	/** `v` ≠ 1, `scheme` ≠ `sc1`, or attachment meta of another version (`chunkSize` ≠ 65536). */
	'UNSUPPORTED_VERSION',
	/** Authentication failed: wrong key, tampering, impossible length; any attachment failure. */
	'DECRYPT_FAILED',
	/** The wrap opens but belongs to another conversation or version; attachment id differs from the event's. */
	'KEY_MISMATCH',
	/** Decryption succeeded but the padding is not valid ISO 7816-4. */
	'BAD_PADDING',
	/** An Ed25519 signature does not verify; also the webhook HMAC mismatch. */
	'SIGNATURE_INVALID',
	/** The user's key is not bound to the invitation secret. */
	'BINDING_INVALID'
] as const;

/** Webhook verification codes (contract 7.2); `SIGNATURE_INVALID` is shared with 7.1. */
export const WEBHOOK_CODES = ['SIGNATURE_MISSING', 'SIGNATURE_MALFORMED', 'SIGNATURE_EXPIRED'] as const;

export type CryptoCode = (typeof CRYPTO_CODES)[number];
export type WebhookCode = (typeof WEBHOOK_CODES)[number];
