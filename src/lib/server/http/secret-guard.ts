/**
 * The server never stores the company's Ed25519 signing secret (contract 2.1: `signing.key` is
 * "never uploaded"; DESIGN "where each secret lives"). Every `/api` request's path, query, headers and
 * body are scanned before any route sees them (after the session check, api/gate.ts): a run of
 * base64/hex characters — as written, percent-decoded (queries, forms), with line breaks removed
 * (wrapped base64), or the body of a PEM block — that decodes to 64 bytes whose last 32 are `signing.pub`
 * (the libsodium layout seed ‖ public), to 32 bytes whose Ed25519 public key is `signing.pub` (the seed
 * alone), or to a PKCS#8 Ed25519 key holding that seed; or a JSON array of 32 or 64 byte values that is
 * one of those: refused with `400 SECRET_REFUSED`.
 */
import { constantTimeEqual, ContractError, ed25519KeyPairFromSeed, ED25519_SECRET_KEY_BYTES, KEY_BYTES } from '../../crypto/index';

/** Runs of characters that could spell a key in base64(url) or hex; longer runs may hold a PEM/DER body. */
const CANDIDATE = /[A-Za-z0-9+/_-]{43,}={0,2}/g;
const HEX = /^[0-9a-fA-F]+$/;
const BASE64_LENGTHS = new Set([43, 44, 86, 88]);
/** Longest run decoded whole (to look for a PKCS#8 key inside): a PEM body of an Ed25519 key is 64. */
const MAX_DECODED_RUN = 4096;
/** The DER prefix of an Ed25519 private key in PKCS#8 (RFC 8410): the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const PEM = /-----BEGIN [A-Z0-9 ]{1,40}-----([\s\S]{1,8192}?)-----END [A-Z0-9 ]{1,40}-----/g;

function decodings(run: string): Uint8Array[] {
	const found: Uint8Array[] = [];
	// Stryker disable next-line all: equivalent: decoding more runs as hex only costs time, a match still needs signing.pub
	if (HEX.test(run) && (run.length === 2 * KEY_BYTES || run.length === 2 * ED25519_SECRET_KEY_BYTES))
		found.push(new Uint8Array(Buffer.from(run, 'hex')));
	// Stryker disable next-line all: equivalent: a bound on work, not on what is found in a key-sized run
	if (run.length > MAX_DECODED_RUN) return found;
	// Node's base64 decoder reads both alphabets, with or without padding.
	const bytes = new Uint8Array(Buffer.from(run, 'base64'));
	// Stryker disable next-line all: equivalent: only runs of these lengths decode to 32 or 64 bytes
	if (BASE64_LENGTHS.has(run.length) && (bytes.length === KEY_BYTES || bytes.length === ED25519_SECRET_KEY_BYTES)) found.push(bytes);
	const der = Buffer.from(bytes).indexOf(PKCS8_ED25519_PREFIX);
	// Stryker disable next-line all: equivalent: without the DER prefix the slice is no key of signing.pub
	if (der >= 0 && bytes.length >= der + PKCS8_ED25519_PREFIX.length + 32) {
		found.push(bytes.slice(der + PKCS8_ED25519_PREFIX.length, der + PKCS8_ED25519_PREFIX.length + 32));
	}
	return found;
}

/** `%XX` undone (and `+` as a space, as in forms), without throwing on malformed sequences. */
function percentDecoded(text: string): string {
	// Stryker disable next-line all: equivalent: a shortcut; decoding a text without % or + changes nothing
	if (!text.includes('%') && !text.includes('+')) return text;
	return text.replace(/\+/g, ' ').replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * The spellings a key may hide under in a text: as is; percent-decoded (query strings, form bodies);
 * and each of those with line breaks, escapes and spaces removed (line-wrapped base64, PEM bodies).
 */
function variants(text: string): string[] {
	const found = new Set([text, percentDecoded(text)]);
	for (const variant of [...found]) {
		// Stryker disable next-line all: equivalent: removing each blank alone or a run of them gives the same text
		for (const [, body] of variant.matchAll(PEM)) found.add(body.replace(/\\[nrt]|\s+/g, ''));
		// Stryker disable next-line all: equivalent: removing each blank alone or a run of them gives the same text
		found.add(variant.replace(/\\[nrt]|\s+/g, ''));
	}
	return [...found];
}

/**
 * Seeds checked per request: a roster's 1,000 public keys fit; a body stuffed with 32-byte values to
 * make the server derive keys (before any session check) does not.
 */
export const MAX_SEEDS_CHECKED = 4096;

/** Checks candidates against `signing.pub`, counting the Ed25519 derivations they cost. */
class SecretScanner {
	private seeds = 0;
	/** Tokens already checked: the raw text and the parsed value spell most of them twice. */
	private readonly seen = new Set<string>();

	constructor(private readonly signingPublicKey: Uint8Array) {}

	private isSigningSecret(bytes: Uint8Array): boolean {
		if (bytes.length === ED25519_SECRET_KEY_BYTES) return constantTimeEqual(bytes.subarray(KEY_BYTES), this.signingPublicKey);
		// Stryker disable next-line all: equivalent: signing.pub itself is no seed of signing.pub; skipping it saves a derivation
		if (bytes.length !== KEY_BYTES || constantTimeEqual(bytes, this.signingPublicKey)) return false;
		if (++this.seeds > MAX_SEEDS_CHECKED) {
			throw new ContractError('INVALID_REQUEST', `the body holds more than ${MAX_SEEDS_CHECKED} key-like values`);
		}
		return constantTimeEqual(ed25519KeyPairFromSeed(bytes).publicKey, this.signingPublicKey);
	}

	text(text: string): boolean {
		for (const variant of variants(text)) {
			for (const [token] of variant.matchAll(CANDIDATE)) {
				if (this.seen.has(token)) continue;
				this.seen.add(token);
				for (const bytes of decodings(token)) if (this.isSigningSecret(bytes)) return true;
			}
		}
		return false;
	}

	value(value: unknown): boolean {
		if (typeof value === 'string') return this.text(value);
		// Stryker disable next-line all: equivalent: an array of bytes of another length holds no key and nothing to scan
		if (Array.isArray(value) && (value.length === KEY_BYTES || value.length === ED25519_SECRET_KEY_BYTES) && value.every(isByte)) {
			return this.isSigningSecret(Uint8Array.from(value as number[]));
		}
		if (Array.isArray(value)) return value.some((item) => this.value(item));
		if (typeof value === 'object' && value !== null) return Object.entries(value).some(([key, item]) => this.text(key) || this.value(item));
		return false;
	}
}

const isByte = (item: unknown) => Number.isInteger(item) && (item as number) >= 0 && (item as number) <= 255;

/** Whether any string (value or key) of a JSON value holds the signing secret. */
export function holdsSigningSecret(value: unknown, signingPublicKey: Uint8Array): boolean {
	return new SecretScanner(signingPublicKey).value(value);
}

const refused = () =>
	new ContractError(
		'SECRET_REFUSED',
		'this request carries the company signing key (signing.key); it stays in your browser and is never sent to the server'
	);

/** Refuses a request whose path, query or headers carry the signing secret (cheap: they are short). */
export function refuseSigningSecretInRequestLine(url: URL, headers: Headers, signingPublicKey: Uint8Array): void {
	const scanner = new SecretScanner(signingPublicKey);
	if (scanner.text(url.pathname + url.search)) throw refused();
	for (const [, value] of headers) if (scanner.text(value)) throw refused();
}

/**
 * Refuses a request body that carries the signing secret; reads a copy, so the route still reads the
 * original. The body text is scanned as JSON when it parses (escapes undone), and as raw text always.
 */
export async function refuseSigningSecret(request: Request, signingPublicKey: Uint8Array): Promise<void> {
	// Stryker disable next-line all: equivalent: a request without a body reads as empty text
	if (!request.body) return;
	// A body the adapter cuts (over its size limit) is the route's to refuse with 413.
	const text = await request
		.clone()
		.text()
		// Stryker disable next-line all: equivalent: a body that cannot be read holds nothing to find
		.catch(() => '');
	// Stryker disable next-line all: equivalent: an empty body holds no key
	if (text.length === 0) return;
	let parsed: unknown = undefined;
	try {
		parsed = JSON.parse(text);
	} catch {
		// not JSON: the raw text is scanned below
	}
	const scanner = new SecretScanner(signingPublicKey);
	if (scanner.text(text) || scanner.value(parsed)) throw refused();
}
