/**
 * The one error type of the project: `ContractError` carries a code named by the wire contract
 * (contract 7.1 crypto codes, 7.2 webhook codes, 7.3 HTTP codes) and, for HTTP errors, the status.
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

/** Codes of `/v1` HTTP errors (contract 7.3), plus our own for what the contract leaves open (docs/contract-gaps.md §2). */
export const HTTP_CODES = [
	'INVALID_SIGNATURE',
	'IDEMPOTENCY_CONFLICT',
	'CONVERSATION_PENDING',
	'CONVERSATION_AWAITING_KEY',
	'INVALID_ENVELOPE',
	'KEY_VERSION_MISMATCH',
	'USER_DELETED',
	'ATTACHMENT_NOT_UPLOADED',
	'ATTACHMENT_ALREADY_USED',
	'INVALID_REQUEST',
	'IDEMPOTENCY_KEY_REQUIRED',
	'INVALID_IDEMPOTENCY_KEY',
	'INVALID_WRAP',
	'INVALID_API_KEY',
	'NOT_FOUND',
	'ATTACHMENT_NOT_FOUND',
	'METHOD_NOT_ALLOWED',
	'CONVERSATION_NOT_AWAITING_KEY',
	'ROSTER_VERSION_CONFLICT',
	'AGENT_NOT_IN_ROSTER',
	'PAYLOAD_TOO_LARGE',
	'RATE_LIMITED',
	'FORBIDDEN',
	'INTERNAL'
] as const;

/**
 * Codes of the browser's key store and crypto worker (src/lib/keystore, src/lib/crypto/worker). The
 * contract does not name these conditions; they never travel on the wire.
 */
export const KEYSTORE_CODES = [
	/** The key the operation needs is not unlocked in this worker (never unlocked, locked since, or a stale handle). */
	'LOCKED',
	/** The passphrase does not open the stored key or the backup; nothing was changed. */
	'WRONG_PASSPHRASE',
	/** No key of that kind is stored in this browser. */
	'KEY_NOT_FOUND',
	/** A key of that kind is already stored; creating or importing another would replace it. */
	'KEY_EXISTS',
	/** No conversation key is open for this conversation (or it left the cache): open its wrap first. */
	'CONVERSATION_KEY_NOT_OPEN',
	/** IndexedDB or WebCrypto is unavailable, refused, or holds data of a newer version of the inbox. */
	'STORAGE_UNAVAILABLE'
] as const;

/**
 * Codes of the inbox server's own API (`/api/...`, docs/inbox-api.md): sessions, the signing proxy and
 * the server's view of the service. The contract does not name these conditions.
 */
export const INBOX_CODES = [
	/** No session, or an unknown, expired or logged-out one, or a disabled account (401). */
	'UNAUTHENTICATED',
	/** Login with a wrong username or password; the two are not told apart (401). */
	'INVALID_CREDENTIALS',
	/** A non-GET `/api` request whose `Origin` is missing or not the server's own (403). */
	'ORIGIN_REJECTED',
	/** A proxy request for a method and path outside the allowlist of the caller's role (403). */
	'ROUTE_NOT_ALLOWED',
	/** A proxy path with `..`, `.`, an empty segment, an encoded `/` or `\`, or an absolute URL (400). */
	'INVALID_PATH',
	/** A request body without `Content-Type: application/json` (415). */
	'UNSUPPORTED_MEDIA_TYPE',
	/** A username, `agentKeyId` or agent key that is already taken or already registered (409). */
	'ALREADY_EXISTS',
	/** The service answered with a body the inbox cannot read (502). */
	'INVALID_RESPONSE',
	/** The service could not be reached after the retries, or kept answering 5xx (503). */
	'UPSTREAM_UNAVAILABLE',
	/** The inbox's own database is failing; retry later (503). */
	'UNAVAILABLE',
	/** A request body carries the company's Ed25519 signing secret (`signing.key`), which the server never stores (400). */
	'SECRET_REFUSED',
	/** An agent invitation link that was already used or has expired (410). */
	'INVITATION_EXPIRED',
	/** The step needs a person at the service's portal: the inbox cannot do it against a real service (409). */
	'MANUAL_STEP_REQUIRED',
	/** The account is neither an admin nor an agent of the latest roster holding this conversation's key (403). */
	'NO_CONVERSATION_ACCESS',
	/** The team's policy wants someone other than the person who re-invited to approve the rewrap (403). */
	'SECOND_PERSON_REQUIRED'
] as const;

export type CryptoCode = (typeof CRYPTO_CODES)[number];
export type WebhookCode = (typeof WEBHOOK_CODES)[number];
export type HttpCode = (typeof HTTP_CODES)[number];
export type KeystoreCode = (typeof KEYSTORE_CODES)[number];
export type InboxCode = (typeof INBOX_CODES)[number];
export type ContractCode = CryptoCode | WebhookCode | HttpCode | KeystoreCode | InboxCode;

const KNOWN_CODES: ReadonlySet<string> = new Set<string>([
	...CRYPTO_CODES,
	...WEBHOOK_CODES,
	...HTTP_CODES,
	...KEYSTORE_CODES,
	...INBOX_CODES
]);

export function isContractCode(value: unknown): value is ContractCode {
	return typeof value === 'string' && KNOWN_CODES.has(value);
}

export class ContractError extends Error {
	override readonly name = 'ContractError';

	constructor(
		readonly code: ContractCode,
		message: string = code,
		/** HTTP status, for errors of `/v1` or the inbox's own API. */
		readonly status?: number
	) {
		super(message);
	}

	/** Plain data that survives `structuredClone`, comlink and JSON. */
	toJSON(): { code: ContractCode; message: string; status?: number } {
		return this.status === undefined
			? { code: this.code, message: this.message }
			: { code: this.code, message: this.message, status: this.status };
	}

	static fromJSON(value: { code: ContractCode; message: string; status?: number }): ContractError {
		return new ContractError(value.code, value.message, value.status);
	}
}

export function fail(code: ContractCode, message: string = code): never {
	throw new ContractError(code, message);
}

/** The code of `error` when it is a ContractError, otherwise undefined. */
export function codeOf(error: unknown): ContractCode | undefined {
	return error instanceof ContractError ? error.code : undefined;
}
