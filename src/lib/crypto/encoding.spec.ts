import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeOfCall } from './test-support';
import { b64uDecode, b64uDecodeLength, b64uEncode, constantTimeEqual, utf8Decode, utf8Encode, utf8Length } from './encoding';

describe('constant-time comparison', () => {
	it('is true only for the same bytes: any one byte changed, the last included, or another length is false', () => {
		fc.assert(
			fc.property(fc.uint8Array({ minLength: 1, maxLength: 80 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (bytes, at, mask) => {
				expect(constantTimeEqual(bytes, bytes.slice())).toBe(true);
				const changed = bytes.slice();
				changed[at % bytes.length] ^= mask;
				expect(constantTimeEqual(bytes, changed)).toBe(false);
				expect(constantTimeEqual(bytes, bytes.subarray(0, bytes.length - 1))).toBe(false);
			})
		);
		const last = new Uint8Array(32);
		const other = last.slice();
		other[31] = 1;
		expect(constantTimeEqual(last, other)).toBe(false);
	});
});

describe('strict unpadded base64url (contract 1.1)', () => {
	it('round-trips any bytes, agreeing with Node', () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
				const text = b64uEncode(bytes);
				expect(text).toBe(Buffer.from(bytes).toString('base64url'));
				expect(b64uDecode(text)).toEqual(bytes);
			})
		);
	});

	it('rejects =, whitespace, other alphabets and impossible lengths', () => {
		fc.assert(
			fc.property(
				fc.uint8Array({ minLength: 1, maxLength: 60 }),
				fc.constantFrom('=', ' ', '\n', '\r', '\t', '+', '/', '.', 'é', '\u0000', '\u007f', '\u0080', '\u00ff', '\u0100'),
				fc.nat(),
				(bytes, intruder, where) => {
					const text = b64uEncode(bytes);
					const position = where % (text.length + 1);
					const spoiled = text.slice(0, position) + intruder + text.slice(position);
					expect(codeOfCall(() => b64uDecode(spoiled))).toBe('INVALID_INPUT');
				}
			)
		);
		expect(codeOfCall(() => b64uDecode('A'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => b64uDecode('AAAAA'))).toBe('INVALID_INPUT');
	});

	it('rejects non-zero leftover bits, so every value has one spelling', () => {
		const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
		fc.assert(
			fc.property(
				fc.uint8Array({ minLength: 1, maxLength: 40 }).filter((b) => b.length % 3 !== 0),
				fc.integer({ min: 1, max: 15 }),
				(bytes, bits) => {
					const text = b64uEncode(bytes);
					const spareBits = bytes.length % 3 === 1 ? 0b1111 : 0b11;
					const last = alphabet.indexOf(text[text.length - 1]);
					const altered = text.slice(0, -1) + alphabet[last | (bits & spareBits || 1)];
					expect(codeOfCall(() => b64uDecode(altered))).toBe('INVALID_INPUT');
				}
			)
		);
		expect(b64uDecode('AA')).toEqual(new Uint8Array([0]));
		expect(codeOfCall(() => b64uDecode('AB'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => b64uDecode('AAB'))).toBe('INVALID_INPUT');
	});

	it('names the value that failed, and the first character outside the alphabet with its position', () => {
		expect(() => b64uDecode('a=', 'nonce')).toThrow(/^nonce is not base64url: character "=" at 1$/);
		expect(() => b64uDecode('AAAAAAé', 'nonce')).toThrow(/^nonce is not base64url: character "é" at 6$/);
		expect(() => b64uDecode('AAAA\u0080AAA')).toThrow(/^value is not base64url: character "\u0080" at 4$/);
		expect(() => b64uDecode('AAAAA', 'tag')).toThrow(/^tag is not base64url: impossible length 5$/);
		expect(() => b64uDecode('AB', 'tag')).toThrow(/^tag is not canonical base64url: leftover bits$/);
		expect(() => b64uDecode('AAB', 'tag')).toThrow(/^tag is not canonical base64url: leftover bits$/);
		expect(() => b64uDecode(42 as unknown as string)).toThrow(/^value must be a base64url string$/);
		expect(() => b64uDecodeLength('AAAA', 24, 'nonce')).toThrow(/^nonce must be 24 bytes, got 3$/);
		expect(b64uDecodeLength('AAAA', 3, 'nonce')).toEqual(new Uint8Array(3));
		expect(codeOfCall(() => b64uDecode(42 as unknown as string))).toBe('INVALID_INPUT');
	});
});

describe('strict UTF-8 (contract 1.1)', () => {
	it('round-trips well-formed strings and counts their bytes', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'binary' }), (text) => {
				const bytes = utf8Encode(text);
				expect(utf8Length(text)).toBe(bytes.length);
				expect(utf8Decode(bytes)).toBe(text);
			})
		);
	});

	it('counts the bytes the encoder writes at every boundary, lone surrogates included', () => {
		const boundaries = ['\u007f', '\u0080', '\u07ff', '\u0800', '\ud7ff', '\ud800', '\udbff', '\udc00', '\udfff', '\ue000', '\uffff', 'a'];
		fc.assert(
			fc.property(
				fc.array(
					fc.oneof(
						fc.constantFrom(...boundaries),
						fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code))
					)
				),
				(units) => {
					const text = units.join('');
					// The encoder writes a lone surrogate as U+FFFD, three bytes: the length a limit must count.
					expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
				}
			)
		);
		expect(utf8Length('\ud800\udc00')).toBe(4);
		expect(utf8Length('\udc00\u0800')).toBe(6);
		expect(utf8Length('a\ud800')).toBe(4);
	});

	it('names the text that failed', () => {
		expect(() => utf8Encode(42 as unknown as string, 'body')).toThrow(/^body must be a string$/);
		expect(() => utf8Encode(42 as unknown as string)).toThrow(/^text must be a string$/);
		expect(() => utf8Encode('\ud800', 'body')).toThrow(/^body contains a lone surrogate$/);
		expect(() => utf8Encode('\ud800')).toThrow(/^text contains a lone surrogate$/);
		expect(() => utf8Decode(new Uint8Array([0xff]), 'body')).toThrow(/^body is not valid UTF-8$/);
		expect(() => utf8Decode(new Uint8Array([0xff]))).toThrow(/^text is not valid UTF-8$/);
	});

	it('keeps a leading byte order mark as text', () => {
		expect(utf8Decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('\ufeffA');
	});

	it('refuses overlong forms, surrogates and truncated sequences instead of replacing them', () => {
		for (const bytes of [
			[0xc0, 0xaf], // overlong "/"
			[0xe0, 0x80, 0xaf], // overlong
			[0xed, 0xa0, 0x80], // UTF-16 surrogate D800
			[0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
			[0xe2, 0x82], // truncated
			[0xff]
		]) {
			expect(codeOfCall(() => utf8Decode(new Uint8Array(bytes)))).toBe('INVALID_INPUT');
		}
	});

	it('refuses to encode a lone surrogate', () => {
		expect(codeOfCall(() => utf8Encode('a\ud800b'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => utf8Encode('\udc00'))).toBe('INVALID_INPUT');
	});
});
