/**
 * Encodings of contract 1.1: strict unpadded base64url, strict UTF-8, hex, big-endian integers and
 * byte helpers. Every failure is `INVALID_INPUT`, naming the value that failed. Base64url is decoded
 * by the runtime's native decoder (`setFromBase64`, or Node's `Buffer`) only after the strict checks
 * of 1.1 have passed; a portable decoder serves runtimes without one and words every error.
 */
import { fail } from '../errors';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DECODE_TABLE = new Int16Array(128).fill(-1);
for (let index = 0; index < ALPHABET.length; index++) DECODE_TABLE[ALPHABET.charCodeAt(index)] = index;

/** Unpadded base64url (RFC 4648 §5). */
export function b64uEncode(bytes: Uint8Array): string {
	let out = '';
	const full = bytes.length - (bytes.length % 3);
	for (let i = 0; i < full; i += 3) {
		const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
		out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + ALPHABET[n & 63];
	}
	const rest = bytes.length - full;
	if (rest === 1) {
		const n = bytes[full] << 16;
		out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63];
	} else if (rest === 2) {
		const n = (bytes[full] << 16) | (bytes[full + 1] << 8);
		out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63];
	}
	return out;
}

/** The text's own characters, checked at once before a native decoder (which skips whitespace and `=`) sees it. */
const B64U_TEXT = /^[A-Za-z0-9_-]*$/;

/** Whether `text` is canonical unpadded base64url: only the alphabet, a possible length, zero leftover bits. */
function isCanonicalB64u(text: string): boolean {
	const rest = text.length % 4;
	if (rest === 1 || !B64U_TEXT.test(text)) return false;
	// The bits after the last whole byte must be zero, so every value has one spelling.
	// Stryker disable next-line ConditionalExpression: equivalent: a text refused here goes to the portable decoder, which decodes or refuses it the same way
	return rest === 0 || (DECODE_TABLE[text.charCodeAt(text.length - 1)] & (rest === 2 ? 15 : 3)) === 0;
}

type SetFromBase64 = (this: Uint8Array, text: string, options: { alphabet: 'base64url' }) => unknown;
interface NodeBufferView {
	write(text: string, offset: number, length: number, encoding: 'base64url'): number;
}

/** What the strict decoder takes from the runtime: its native base64 decoding, where there is one. */
export interface Base64Runtime {
	/** `Uint8Array.prototype.setFromBase64` (TC39 base64 proposal; Chromium, hence the worker). */
	Uint8Array?: { prototype: { setFromBase64?: SetFromBase64 } };
	/** Node's `Buffer`. */
	Buffer?: { from(buffer: ArrayBufferLike, byteOffset: number, length: number): NodeBufferView };
}

const BASE64URL = { alphabet: 'base64url' } as const;

/** A runtime's native decoding of text that passed `isCanonicalB64u` into the start of `target`, which has room. */
type NativeDecode = (text: string, target: Uint8Array) => void;

/**
 * `setFromBase64` where the runtime has it, Node's `Buffer` otherwise. Both are lenient (they skip
 * whitespace and `=`, and ignore leftover bits), hence only canonical text reaches them.
 */
function nativeDecoders(runtime: Base64Runtime): { fresh: NativeDecode; reused: NativeDecode } | undefined {
	const setFromBase64 = runtime.Uint8Array?.prototype.setFromBase64;
	if (typeof setFromBase64 === 'function') {
		const decode: NativeDecode = (text, target) => void setFromBase64.call(target, text, BASE64URL);
		return { fresh: decode, reused: decode };
	}
	const NodeBuffer = runtime.Buffer;
	if (NodeBuffer === undefined) return undefined;
	// A view of the whole buffer last decoded into by `decodeInto`: it is the same WASM heap call after call.
	let last: { buffer: ArrayBufferLike; view: NodeBufferView } | undefined;
	return {
		fresh: (text, target) =>
			void NodeBuffer.from(target.buffer, target.byteOffset, target.length).write(text, 0, target.length, 'base64url'),
		reused: (text, target) => {
			const buffer = target.buffer;
			// Stryker disable next-line ConditionalExpression: equivalent: a view taken afresh on every call writes the same bytes; keeping it only saves time
			if (last?.buffer !== buffer) last = { buffer, view: NodeBuffer.from(buffer, 0, buffer.byteLength) };
			last.view.write(text, target.byteOffset, target.length, 'base64url');
		}
	};
}

export interface StrictB64uDecoder {
	/**
	 * Rejects `=`, whitespace, characters of other alphabets, a length with `% 4 == 1`, and non-zero
	 * leftover bits in the last character (so every value has one spelling). Returns a fresh array that
	 * owns its buffer: callers transfer or wipe `.buffer`.
	 */
	decode(text: unknown, what?: string): Uint8Array;
	/**
	 * `decode` without allocating: writes the bytes at the start of `target` when they fit, and returns
	 * their count either way (a longer value is left for the caller to refuse by its length).
	 */
	decodeInto(text: unknown, target: Uint8Array, what?: string): number;
}

/** Below this many characters the portable decoder is faster than a call into the runtime's own. */
const NATIVE_FROM_LENGTH = 64;

/**
 * The strict decoder over a runtime: values of 64 characters or more go to the runtime's native
 * decoder, when it has one, once they pass the checks of contract 1.1; `b64uDecodePortable` decodes
 * the others and words every error.
 */
export function strictB64uDecoder(runtime: Base64Runtime): StrictB64uDecoder {
	const native = nativeDecoders(runtime);
	if (native === undefined) return { decode: b64uDecodePortable, decodeInto: portableDecodeInto };
	const { fresh, reused } = native;
	const forNative = (text: unknown): text is string =>
		typeof text === 'string' && text.length >= NATIVE_FROM_LENGTH && isCanonicalB64u(text);
	return {
		decode(text, what = 'value') {
			if (!forNative(text)) return b64uDecodePortable(text, what);
			const out = new Uint8Array(decodedLength(text));
			fresh(text, out);
			return out;
		},
		decodeInto(text, target, what = 'value') {
			if (!forNative(text)) return portableDecodeInto(text, target, what);
			const length = decodedLength(text);
			if (length <= target.length) reused(text, target);
			return length;
		}
	};
}

function decodedLength(text: string): number {
	return Math.floor((text.length * 3) / 4);
}

const runtimeDecoder = strictB64uDecoder(globalThis as Base64Runtime);

/** Strict unpadded base64url (contract 1.1), with the runtime's native decoder after the strict checks. */
export const b64uDecode: StrictB64uDecoder['decode'] = runtimeDecoder.decode;

/** `b64uDecode` into `target` (see `StrictB64uDecoder.decodeInto`): for decoding straight into libsodium's heap. */
export const b64uDecodeInto: StrictB64uDecoder['decodeInto'] = runtimeDecoder.decodeInto;

/** The strict decoder in plain JavaScript, for runtimes without a native one; also words `b64uDecode`'s errors. */
export function b64uDecodePortable(text: unknown, what = 'value'): Uint8Array {
	const checked = requireB64uString(text, what);
	const out = new Uint8Array(decodedLength(checked));
	writePortable(checked, out, what);
	return out;
}

/** `decodeInto` in plain JavaScript; a refused value may leave part of its bytes in `target`. */
function portableDecodeInto(text: unknown, target: Uint8Array, what = 'value'): number {
	const checked = requireB64uString(text, what);
	const length = decodedLength(checked);
	if (length <= target.length) writePortable(checked, target, what);
	else b64uDecodePortable(checked, what); // too long to keep, but refused all the same if it is no base64url
	return length;
}

function requireB64uString(text: unknown, what: string): string {
	if (typeof text !== 'string') fail('INVALID_INPUT', `${what} must be a base64url string`);
	if (text.length % 4 === 1) fail('INVALID_INPUT', `${what} is not base64url: impossible length ${text.length}`);
	return text;
}

/** Decodes `text`, of a possible length, to the start of `out`, which has room for it. */
function writePortable(text: string, out: Uint8Array, what: string): void {
	const length = text.length;
	let o = 0;
	let i = 0;
	for (; i + 4 <= length; i += 4) {
		const c0 = text.charCodeAt(i);
		const c1 = text.charCodeAt(i + 1);
		const c2 = text.charCodeAt(i + 2);
		const c3 = text.charCodeAt(i + 3);
		if ((c0 | c1 | c2 | c3) >= 128) failInvalid(text, what);
		const n = (DECODE_TABLE[c0] << 18) | (DECODE_TABLE[c1] << 12) | (DECODE_TABLE[c2] << 6) | DECODE_TABLE[c3];
		if (n < 0) failInvalid(text, what);
		out[o++] = n >> 16;
		out[o++] = n >> 8;
		out[o++] = n;
	}
	const rest = length - i;
	// Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent: with nothing left over, the block writes one byte past the output's end, which a typed array ignores
	if (rest > 0) {
		const a = portableSextet(text, i, what);
		const b = portableSextet(text, i + 1, what);
		const c = rest === 3 ? portableSextet(text, i + 2, what) : 0;
		// The bits after the last whole byte must be zero, so every value has one spelling.
		// Stryker disable next-line ConditionalExpression: equivalent: with two characters left, c is 0, so `rest === 3 &&` changes nothing
		if ((rest === 2 && b & 15) || (rest === 3 && c & 3)) fail('INVALID_INPUT', `${what} is not canonical base64url: leftover bits`);
		out[o++] = (a << 2) | (b >> 4);
		// Stryker disable next-line ConditionalExpression: equivalent: with two characters left the write lands past the output's end, which a typed array ignores
		if (rest === 3) out[o] = ((b & 15) << 4) | (c >> 2);
	}
}

function portableSextet(text: string, position: number, what: string): number {
	const code = text.charCodeAt(position);
	const value = code < 128 ? DECODE_TABLE[code] : -1;
	if (value < 0) failInvalid(text, what);
	return value;
}

function failInvalid(text: string, what: string): never {
	return fail('INVALID_INPUT', `${what} is not base64url: ${describeInvalid(text)}`);
}

function describeInvalid(text: string): string {
	// Stryker disable next-line EqualityOperator: equivalent: a character outside the alphabet is always found before the end (one more step reads NaN, which passes)
	for (let position = 0; position < text.length; position++) {
		const code = text.charCodeAt(position);
		if (code >= 128 || DECODE_TABLE[code] < 0) return `character ${JSON.stringify(text[position])} at ${position}`;
	}
	// Stryker disable next-line StringLiteral: equivalent: only called once a character outside the alphabet was found, so the loop always returns first
	return 'invalid';
}

/** Decodes and requires an exact length: `nonce must be 24 bytes, got 23`. */
export function b64uDecodeLength(text: unknown, length: number, what: string): Uint8Array {
	const bytes = b64uDecode(text, what);
	if (bytes.length !== length) fail('INVALID_INPUT', `${what} must be ${length} bytes, got ${bytes.length}`);
	return bytes;
}

const utf8Encoder = new TextEncoder();
// fatal: reject overlong forms, surrogates and truncated sequences; ignoreBOM: keep a leading U+FEFF as text.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Strict UTF-8 of a well-formed string; a lone surrogate is `INVALID_INPUT`, never U+FFFD. */
export function utf8Encode(text: string, what = 'text'): Uint8Array {
	if (typeof text !== 'string') fail('INVALID_INPUT', `${what} must be a string`);
	if (!text.isWellFormed()) fail('INVALID_INPUT', `${what} contains a lone surrogate`);
	return utf8Encoder.encode(text);
}

/** Strict UTF-8 decoding; invalid bytes are `INVALID_INPUT`, never a replacement character. */
export function utf8Decode(bytes: Uint8Array, what = 'text'): string {
	try {
		return utf8Decoder.decode(bytes);
	} catch {
		return fail('INVALID_INPUT', `${what} is not valid UTF-8`);
	}
}

function isLowSurrogate(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}

/** UTF-8 length without allocating, for limits such as 65,536 bytes. */
export function utf8Length(text: string): number {
	let length = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x80) length += 1;
		else if (code < 0x800) length += 2;
		else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
			length += 4;
			i++;
		} else length += 3; // a lone surrogate is written as U+FFFD
	}
	return length;
}

export function hexEncode(bytes: Uint8Array): string {
	let out = '';
	for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
	return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
	let length = 0;
	for (const part of parts) length += part.length;
	const out = new Uint8Array(length);
	let offset = 0;
	for (const part of parts) {
		out.set(part, offset);
		offset += part.length;
	}
	return out;
}

export function u32be(value: number): Uint8Array {
	const out = new Uint8Array(4);
	new DataView(out.buffer).setUint32(0, value, false);
	return out;
}

export function readU32be(bytes: Uint8Array, offset: number): number {
	return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(offset, false);
}

/** Equality whose time depends only on the lengths, for tags and MACs. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
	if (a.length !== b.length) return false;
	let difference = 0;
	// Stryker disable next-line EqualityOperator: equivalent: one more step reads index length of both, and undefined ^ undefined is 0
	for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
	return difference === 0;
}
