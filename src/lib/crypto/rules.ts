/**
 * Shared rules of contract 1.1, 2.9 and 8: the id rule, integer ranges, the domain constant and
 * the limits, each failing with `INVALID_INPUT` and naming the parameter.
 */
import { fail } from '../errors';

export const DOMAIN = 'Service|v1';
export const MAX_KEY_VERSION = 2 ** 31 - 1;
export const NONCE_BYTES = 24;
export const KEY_BYTES = 32;
export const PUBLIC_KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;
/** An Ed25519 secret key in libsodium's layout: seed(32) ‖ public(32). */
export const ED25519_SECRET_KEY_BYTES = 64;
/** The Poly1305 tag of every AEAD and secretbox ciphertext. */
export const TAG_BYTES = 16;
/** A BLAKE2b-256 or SHA-256 digest, a key fingerprint among them. */
export const DIGEST_BYTES = 32;
export const SEALED_BOX_OVERHEAD = 48;
export const MAX_ROSTER_AGENTS = 1000;

// `$` in a JavaScript regex without the `m` flag anchors to the true end: no trailing newline.
/** `conversationId`, `clientMessageId`, `companyId` and the service's other ids (contract 1.1). */
export const ID_RULE = /^[A-Za-z0-9_-]{1,128}$/;
const AGENT_KEY_ID_RULE = /^agk_[A-Za-z0-9_-]{8,64}$/;
/** An `Idempotency-Key`: up to 128 printable ASCII characters, 0x21–0x7e (contract 5.1, 8). */
const IDEMPOTENCY_KEY_RULE = /^[\x21-\x7e]{1,128}$/;

/**
 * The `Idempotency-Key` header's value (contract 5.1, 8): undefined when absent, else the key;
 * `INVALID_IDEMPOTENCY_KEY` (400) when it is not 1 to 128 printable ASCII characters.
 */
export function readIdempotencyKey(value: string | null | undefined): string | undefined {
	if (value === null || value === undefined) return undefined;
	if (!IDEMPOTENCY_KEY_RULE.test(value))
		fail('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 128 printable ASCII characters (0x21–0x7e)');
	return value;
}

export function isId(value: unknown): value is string {
	return typeof value === 'string' && ID_RULE.test(value);
}

/** `conversationId`, `clientMessageId`, `companyId` (contract 1.1). */
export function requireId(value: unknown, what: string): string {
	if (!isId(value)) fail('INVALID_INPUT', `${what} must match ${ID_RULE.source}`);
	return value;
}

export function requireAgentKeyId(value: unknown): string {
	if (typeof value !== 'string' || !AGENT_KEY_ID_RULE.test(value)) {
		fail('INVALID_INPUT', 'agentKeyId must be agk_ followed by 8 to 64 characters of [A-Za-z0-9_-]');
	}
	return value;
}

/** A JSON integer in `[min, max]`; the string "1" and 1.5 are refused. */
export function isIntegerIn(value: unknown, min: number, max: number): value is number {
	return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

export function requireIntegerIn(value: unknown, min: number, max: number, what: string): number {
	if (!isIntegerIn(value, min, max)) fail('INVALID_INPUT', `${what} must be an integer from ${min} to ${max}`);
	return value;
}

/** Conversation and company key versions, roster versions: 1 … 2^31−1. */
export function requireKeyVersion(value: unknown, what = 'keyVersion'): number {
	return requireIntegerIn(value, 1, MAX_KEY_VERSION, what);
}

export function requireBytes(value: unknown, length: number, what: string): Uint8Array {
	if (!(value instanceof Uint8Array)) fail('INVALID_INPUT', `${what} must be bytes`);
	if (value.length !== length) fail('INVALID_INPUT', `${what} must be ${length} bytes, got ${value.length}`);
	return value;
}

const ISSUED_AT_RULE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z$/;

/** `YYYY-MM-DDTHH:MM:SSZ` in ASCII digits, UTC, naming a date that exists (contract 2.9). */
export function requireIssuedAt(value: unknown): string {
	const match = typeof value === 'string' ? ISSUED_AT_RULE.exec(value) : null;
	if (!match) fail('INVALID_INPUT', 'issuedAt must be exactly YYYY-MM-DDTHH:MM:SSZ');
	const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
	if (year < 1 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
		fail('INVALID_INPUT', `issuedAt ${value as string} is not an existing date`);
	}
	return value as string;
}

function daysInMonth(year: number, month: number): number {
	const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
	return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** A time in the contract's format of times, `issuedAt`'s among them: `YYYY-MM-DDTHH:MM:SSZ`, UTC, no milliseconds. */
export function isoSeconds(time: Date | string | number): string {
	// Stryker disable next-line Regex: equivalent: toISOString() has one .mmmZ, at the end
	return new Date(time).toISOString().replace(/\.[0-9]{3}Z$/, 'Z');
}
