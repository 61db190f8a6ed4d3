/**
 * The one error type of the project: `ContractError` carries a code and, for HTTP errors, the status.
 * The contract's own codes (7.1 crypto, 7.2 webhook) are declared by the crypto core
 * (`crypto/errors.ts`); here are the `/v1` HTTP codes (contract 7.3, docs/contract-gaps.md §2), the
 * inbox's own codes (docs/inbox-api.md) and those of the browser's key store, with the one table
 * that gives each HTTP code its status: `new ContractError('NOT_FOUND', …)` is a 404.
 */
import { CRYPTO_CODES, WEBHOOK_CODES, type CryptoCode, type WebhookCode } from './crypto/errors';

/** Codes of `/v1` HTTP errors (contract 7.3), plus the service's for what the contract leaves open (docs/contract-gaps.md §2). */
const HTTP_STATUS = {
	INVALID_SIGNATURE: 401,
	IDEMPOTENCY_CONFLICT: 409,
	CONVERSATION_PENDING: 409,
	CONVERSATION_AWAITING_KEY: 409,
	INVALID_ENVELOPE: 400,
	KEY_VERSION_MISMATCH: 409,
	USER_DELETED: 410,
	ATTACHMENT_NOT_UPLOADED: 409,
	ATTACHMENT_ALREADY_USED: 409,
	INVALID_REQUEST: 400,
	IDEMPOTENCY_KEY_REQUIRED: 400,
	INVALID_IDEMPOTENCY_KEY: 400,
	INVALID_WRAP: 400,
	INVALID_API_KEY: 401,
	NOT_FOUND: 404,
	ATTACHMENT_NOT_FOUND: 404,
	METHOD_NOT_ALLOWED: 405,
	CONVERSATION_NOT_AWAITING_KEY: 409,
	ROSTER_VERSION_CONFLICT: 409,
	AGENT_NOT_IN_ROSTER: 409,
	PAYLOAD_TOO_LARGE: 413,
	RATE_LIMITED: 429,
	FORBIDDEN: 403,
	INTERNAL: 500
} as const;

/**
 * Codes of the inbox server's own API (`/api/...`, docs/inbox-api.md): sessions, the signing proxy and
 * the server's view of the service. The contract does not name these conditions.
 */
const INBOX_STATUS = {
	/** No session, or an unknown, expired or logged-out one, or a disabled account. */
	UNAUTHENTICATED: 401,
	/** Login with a wrong username or password; the two are not told apart. */
	INVALID_CREDENTIALS: 401,
	/** A non-GET `/api` request whose `Origin` is missing or not the server's own. */
	ORIGIN_REJECTED: 403,
	/** A proxy request for a method and path outside the allowlist of the caller's role. */
	ROUTE_NOT_ALLOWED: 403,
	/** A proxy path with `..`, `.`, an empty segment, an encoded `/` or `\`, or an absolute URL. */
	INVALID_PATH: 400,
	/** A request body without `Content-Type: application/json`. */
	UNSUPPORTED_MEDIA_TYPE: 415,
	/** A username, `agentKeyId` or agent key that is already taken or already registered. */
	ALREADY_EXISTS: 409,
	/** The thing asked about is not in a state that allows the request (a job already finished, no rotation pending, one's own account). */
	STATE_CONFLICT: 409,
	/** The service answered with a body the inbox cannot read. */
	INVALID_RESPONSE: 502,
	/** The service could not be reached after the retries, or kept answering 5xx. */
	UPSTREAM_UNAVAILABLE: 503,
	/** The inbox's own database is failing; retry later. */
	UNAVAILABLE: 503,
	/** A request body carries the company's Ed25519 signing secret (`signing.key`), which the server never stores. */
	SECRET_REFUSED: 400,
	/** An invitation link that was already used, replaced or has expired. */
	INVITATION_EXPIRED: 410,
	/** The step needs a person at the service's portal: the inbox cannot do it against a real service. */
	MANUAL_STEP_REQUIRED: 409,
	/** The account is neither an admin nor an agent of the latest roster holding this conversation's key. */
	NO_CONVERSATION_ACCESS: 403,
	/** The account is neither an admin nor an agent whose key is in the latest verified roster (docs/inbox-api.md §1 "Access"). */
	NOT_IN_ROSTER: 403,
	/** The team's policy wants someone other than the person who re-invited to approve the rewrap. */
	SECOND_PERSON_REQUIRED: 403,
	/** A note mentions an account that is not an enabled agent (or admin) who can read its conversation, or its own writer. */
	MENTION_NOT_ALLOWED: 409
} as const;

/**
 * Codes of the browser's key store and crypto worker (src/lib/keystore, src/lib/crypto-worker). The
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
	'STORAGE_UNAVAILABLE',
	/** A chunk worker stopped (crashed, ran out of memory) while encrypting an attachment; nothing was produced, try again. */
	'WORKER_STOPPED'
] as const;

export type HttpCode = keyof typeof HTTP_STATUS;
export type InboxCode = keyof typeof INBOX_STATUS;
export type KeystoreCode = (typeof KEYSTORE_CODES)[number];
export type ContractCode = CryptoCode | WebhookCode | HttpCode | KeystoreCode | InboxCode;

/** The status each HTTP code implies; crypto and key-store codes have none of their own. */
const STATUS_OF: Readonly<Partial<Record<ContractCode, number>>> = {
	...HTTP_STATUS,
	...INBOX_STATUS,
	SIGNATURE_EXPIRED: 401
};

const KNOWN_CODES: ReadonlySet<string> = new Set<string>([
	...CRYPTO_CODES,
	...WEBHOOK_CODES,
	...Object.keys(HTTP_STATUS),
	...KEYSTORE_CODES,
	...Object.keys(INBOX_STATUS)
]);

export function isContractCode(value: unknown): value is ContractCode {
	return typeof value === 'string' && KNOWN_CODES.has(value);
}

/** The status `code` implies when it is an HTTP code (contract 7.3, docs/contract-gaps.md §2, docs/inbox-api.md). */
export function statusOf(code: ContractCode): number | undefined {
	return STATUS_OF[code];
}

/**
 * The code of an error answer whose body names none we know: who answered decides what a 401 or a
 * 5xx means (the inbox's own session, or the service's answer passed on).
 */
export function codeForStatus(status: number, answeredBy: 'inbox' | 'service'): ContractCode {
	if (status === 401 && answeredBy === 'inbox') return 'UNAUTHENTICATED';
	if (status === 404) return 'NOT_FOUND';
	if (status === 409) return 'STATE_CONFLICT';
	if (status === 429) return 'RATE_LIMITED';
	if (status >= 500) return answeredBy === 'inbox' ? 'UNAVAILABLE' : 'UPSTREAM_UNAVAILABLE';
	return 'INVALID_REQUEST';
}

export class ContractError extends Error {
	override readonly name = 'ContractError';
	/** HTTP status, for errors of `/v1` or the inbox's own API: the one `code` implies unless the answer said another. */
	readonly status?: number;

	constructor(
		readonly code: ContractCode,
		message: string = code,
		status: number | undefined = statusOf(code)
	) {
		super(message);
		// Stryker disable next-line ConditionalExpression: equivalent: the class field exists already, undefined
		if (status !== undefined) this.status = status;
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
