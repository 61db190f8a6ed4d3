/**
 * Encodings of contract 1.1: strict unpadded base64url, strict UTF-8, hex, big-endian integers and
 * byte helpers. Every failure is `INVALID_INPUT`, naming the value that failed.
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

/**
 * Strict decoder: rejects `=`, whitespace, characters of other alphabets, a length with
 * `% 4 == 1`, and non-zero leftover bits in the last character (so every value has one spelling).
 */
export function b64uDecode(text: unknown, what = 'value'): Uint8Array {
	if (typeof text !== 'string') fail('INVALID_INPUT', `${what} must be a base64url string`);
	const length = text.length;
	if (length % 4 === 1) fail('INVALID_INPUT', `${what} is not base64url: impossible length ${length}`);
	const out = new Uint8Array(Math.floor((length * 3) / 4));
	const invalid = () => fail('INVALID_INPUT', `${what} is not base64url: ${describeInvalid(text)}`);
	let o = 0;
	let i = 0;
	for (; i + 4 <= length; i += 4) {
		const c0 = text.charCodeAt(i);
		const c1 = text.charCodeAt(i + 1);
		const c2 = text.charCodeAt(i + 2);
		const c3 = text.charCodeAt(i + 3);
		if ((c0 | c1 | c2 | c3) >= 128) invalid();
		const a = DECODE_TABLE[c0];
		const b = DECODE_TABLE[c1];
		const c = DECODE_TABLE[c2];
		const d = DECODE_TABLE[c3];
		if ((a | b | c | d) < 0) invalid();
		out[o++] = (a << 2) | (b >> 4);
		out[o++] = ((b & 15) << 4) | (c >> 2);
		out[o++] = ((c & 3) << 6) | d;
	}
	const rest = length - i;
	if (rest > 0) {
		const sextets = [];
		for (let j = i; j < length; j++) {
			const code = text.charCodeAt(j);
			const value = code < 128 ? DECODE_TABLE[code] : -1;
			if (value < 0) invalid();
			sextets.push(value);
		}
		const [a, b, c = 0] = sextets;
		// The bits after the last whole byte must be zero, so every value has one spelling.
		if ((rest === 2 && b & 15) || (rest === 3 && c & 3)) fail('INVALID_INPUT', `${what} is not canonical base64url: leftover bits`);
		out[o++] = (a << 2) | (b >> 4);
		if (rest === 3) out[o++] = ((b & 15) << 4) | (c >> 2);
	}
	return out;
}

function describeInvalid(text: string): string {
	for (let position = 0; position < text.length; position++) {
		const code = text.charCodeAt(position);
		if (code >= 128 || DECODE_TABLE[code] < 0) return `character ${JSON.stringify(text[position])} at ${position}`;
	}
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
	for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
	return difference === 0;
}
