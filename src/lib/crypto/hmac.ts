/**
 * HMAC-SHA256 authentication of contract 5.1 and 5.2: the canonical string and
 * `X-Service-Signature` of a `/v1` request, and webhook verification (header parsing, ±300 s,
 * constant-time comparison) with the four codes of 7.2. The HMAC key is the whole `whsec_…` text.
 * The HMAC itself is pluggable so the server can use `node:crypto` and the worker libsodium.
 */
import { fail } from '../errors';
import { concatBytes, constantTimeEqual, hexEncode, utf8Encode } from './encoding';
import { sodium } from './sodium';

export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** HMAC-SHA256(key, message). */
export type HmacSha256 = (key: Uint8Array, message: Uint8Array) => Uint8Array;

/** libsodium's HMAC-SHA256 (any key length), usable everywhere the core runs. */
export const sodiumHmacSha256: HmacSha256 = (key, message) => {
	const state = sodium().crypto_auth_hmacsha256_init(key);
	sodium().crypto_auth_hmacsha256_update(state, message);
	return sodium().crypto_auth_hmacsha256_final(state);
};

function bodyBytes(body: string | Uint8Array): Uint8Array {
	return typeof body === 'string' ? utf8Encode(body, 'body') : body;
}

export interface SignedRequest {
	canonical: string;
	/** The `X-Service-Signature` value: `t=<t>,v1=<hex>`. */
	header: string;
}

/**
 * `canonical = t + "." + METHOD + "." + pathAndQuery + "." + rawBody`, signed with the whole
 * secret text. `pathAndQuery` is signed exactly as sent (encoded form included).
 */
export function signRequest(
	input: { secret: string; t: number; method: string; pathAndQuery: string; body: string | Uint8Array },
	hmac: HmacSha256 = sodiumHmacSha256
): SignedRequest {
	if (!Number.isInteger(input.t)) fail('INVALID_INPUT', 't must be integer seconds');
	if (!/^[A-Z]+$/.test(input.method)) fail('INVALID_INPUT', 'method must be uppercase');
	if (!input.pathAndQuery.startsWith('/')) fail('INVALID_INPUT', 'pathAndQuery must start with /');
	const body = bodyBytes(input.body);
	const prefix = `${input.t}.${input.method}.${input.pathAndQuery}.`;
	const mac = hmac(utf8Encode(input.secret, 'secret'), concatBytes(utf8Encode(prefix), body));
	const canonical = prefix + (typeof input.body === 'string' ? input.body : new TextDecoder().decode(body));
	return { canonical, header: `t=${input.t},v1=${hexEncode(mac)}` };
}

export interface ParsedSignatureHeader {
	t: number;
	/** `t` as received: the canonical string signs this text, never the number re-printed. */
	tText: string;
	v1: string;
}

/** Splits on `,`, each part on its first `=`, trimming spaces; `t` digits, `v1` 64 lowercase hex. */
export function parseSignatureHeader(header: string | null | undefined): ParsedSignatureHeader {
	if (header === null || header === undefined) fail('SIGNATURE_MISSING', 'X-Service-Signature is missing');
	const fields = new Map<string, string>();
	for (const part of header.split(',')) {
		const equals = part.indexOf('=');
		if (equals < 0) fail('SIGNATURE_MALFORMED', 'a signature part has no =');
		const key = part.slice(0, equals).trim();
		if (fields.has(key)) fail('SIGNATURE_MALFORMED', `the signature repeats ${key}`);
		fields.set(key, part.slice(equals + 1).trim());
	}
	const t = fields.get('t');
	const v1 = fields.get('v1');
	if (t === undefined || !/^[0-9]{1,15}$/.test(t)) fail('SIGNATURE_MALFORMED', 't must be an integer');
	if (v1 === undefined || !/^[0-9a-f]{64}$/.test(v1)) fail('SIGNATURE_MALFORMED', 'v1 must be 64 lowercase hex characters');
	return { t: Number(t), tText: t, v1 };
}

function hexDecode(hex: string): Uint8Array {
	return Uint8Array.from({ length: hex.length / 2 }, (_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16));
}

/**
 * Webhook verification, steps 2–5 of contract 5.2, against one or more secrets (the current one,
 * and the previous one during a rotation). Returns the timestamp on success.
 */
export function verifyWebhookSignature(
	input: { secrets: readonly string[]; header: string | null | undefined; body: string | Uint8Array; now: number },
	hmac: HmacSha256 = sodiumHmacSha256
): { t: number } {
	const { t, tText, v1 } = parseSignatureHeader(input.header);
	if (Math.abs(input.now - t) > SIGNATURE_TOLERANCE_SECONDS) fail('SIGNATURE_EXPIRED', 'the signature timestamp is outside ±300 s');
	const received = hexDecode(v1);
	const message = concatBytes(utf8Encode(`${tText}.`), bodyBytes(input.body));
	let matched = false;
	for (const secret of input.secrets) {
		// Every secret is checked so the time does not reveal which one matched.
		if (constantTimeEqual(hmac(utf8Encode(secret, 'secret'), message), received)) matched = true;
	}
	if (!matched) fail('SIGNATURE_INVALID', 'the webhook signature does not match');
	return { t };
}
