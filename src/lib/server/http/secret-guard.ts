/**
 * The server never stores the company's Ed25519 signing secret (contract 2.1: `signing.key` is
 * "never uploaded"; DESIGN "where each secret lives"). Every `/api` request body is scanned before any
 * route sees it: a string (or a run of base64/hex characters inside one) that decodes, as base64url,
 * base64 or hex, to 64 bytes whose last 32 are `signing.pub` (the libsodium layout seed ‖ public), or to
 * 32 bytes whose Ed25519 public key is `signing.pub` (the seed alone), is refused with `400 SECRET_REFUSED`.
 */
import { constantTimeEqual, ContractError, ed25519KeyPairFromSeed } from '../../crypto/index';

/** Runs of characters that could spell 32 or 64 bytes in base64(url) (43, 44, 86 or 88) or hex (64 or 128). */
const CANDIDATE = /[A-Za-z0-9+/_-]{43,128}={0,2}/g;
const HEX = /^[0-9a-fA-F]+$/;
const BASE64_LENGTHS = new Set([43, 44, 86, 88]);

function decodings(token: string): Uint8Array[] {
	const found: Uint8Array[] = [];
	if (HEX.test(token) && (token.length === 64 || token.length === 128)) found.push(new Uint8Array(Buffer.from(token, 'hex')));
	if (BASE64_LENGTHS.has(token.length)) {
		// Node's base64 decoder reads both alphabets, with or without padding.
		const bytes = new Uint8Array(Buffer.from(token, 'base64'));
		if (bytes.length === 32 || bytes.length === 64) found.push(bytes);
	}
	return found;
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
		if (bytes.length === 64) return constantTimeEqual(bytes.subarray(32), this.signingPublicKey);
		if (bytes.length !== 32 || constantTimeEqual(bytes, this.signingPublicKey)) return false;
		if (++this.seeds > MAX_SEEDS_CHECKED) {
			throw new ContractError('INVALID_REQUEST', `the body holds more than ${MAX_SEEDS_CHECKED} key-like values`, 400);
		}
		return constantTimeEqual(ed25519KeyPairFromSeed(bytes).publicKey, this.signingPublicKey);
	}

	text(text: string): boolean {
		for (const [token] of text.matchAll(CANDIDATE)) {
			if (this.seen.has(token)) continue;
			this.seen.add(token);
			for (const bytes of decodings(token)) if (this.isSigningSecret(bytes)) return true;
		}
		return false;
	}

	value(value: unknown): boolean {
		if (typeof value === 'string') return this.text(value);
		if (Array.isArray(value)) return value.some((item) => this.value(item));
		if (typeof value === 'object' && value !== null) return Object.entries(value).some(([key, item]) => this.text(key) || this.value(item));
		return false;
	}
}

/** Whether any string (value or key) of a JSON value holds the signing secret. */
export function holdsSigningSecret(value: unknown, signingPublicKey: Uint8Array): boolean {
	return new SecretScanner(signingPublicKey).value(value);
}

/**
 * Refuses a request body that carries the signing secret; reads a copy, so the route still reads the
 * original. The body text is scanned as JSON when it parses (escapes undone), and as raw text always.
 */
export async function refuseSigningSecret(request: Request, signingPublicKey: Uint8Array): Promise<void> {
	if (!request.body) return;
	// A body the adapter cuts (over its size limit) is the route's to refuse with 413.
	const text = await request
		.clone()
		.text()
		.catch(() => '');
	if (text.length === 0) return;
	let parsed: unknown = undefined;
	try {
		parsed = JSON.parse(text);
	} catch {
		// not JSON: the raw text is scanned below
	}
	const scanner = new SecretScanner(signingPublicKey);
	if (scanner.text(text) || scanner.value(parsed)) {
		throw new ContractError(
			'SECRET_REFUSED',
			'this request carries the company signing key (signing.key); it stays in your browser and is never sent to the server',
			400
		);
	}
}
