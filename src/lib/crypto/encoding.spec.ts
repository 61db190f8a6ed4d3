import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeOfCall } from '$test-support/error-codes';
import {
	b64uDecode,
	b64uDecodeInto,
	b64uDecodeLength,
	b64uDecodePortable,
	b64uEncode,
	constantTimeEqual,
	strictB64uDecoder,
	utf8Decode,
	utf8Encode,
	utf8Length,
	type Base64Runtime,
	type StrictB64uDecoder
} from './encoding';

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

/**
 * `Uint8Array.prototype.setFromBase64` as the standard defines it, for the path Chromium takes: as lenient
 * (it skips ASCII whitespace and `=`, and ignores leftover bits), so only the strict checks before it can
 * refuse anything.
 */
const lenientSetFromBase64: SetFromBase64 = function (this: Uint8Array, text, options) {
	if (options.alphabet !== 'base64url') throw new SyntaxError('expected the base64url alphabet');
	const bytes = Buffer.from(text.replace(/[\t\n\f\r =]/g, ''), 'base64url');
	this.set(bytes.subarray(0, this.length));
	return { read: text.length, written: Math.min(bytes.length, this.length) };
};
type SetFromBase64 = NonNullable<NonNullable<Base64Runtime['Uint8Array']>['prototype']['setFromBase64']>;

const decoders: [string, StrictB64uDecoder][] = [
	["this runtime's (Node's Buffer)", { decode: b64uDecode, decodeInto: b64uDecodeInto }],
	['setFromBase64 (Chromium)', strictB64uDecoder({ Uint8Array: { prototype: { setFromBase64: lenientSetFromBase64 } } })],
	['portable', strictB64uDecoder({})]
];

describe.each(decoders)('strict unpadded base64url (contract 1.1), %s decoder', (_, { decode, decodeInto }) => {
	it('round-trips any bytes, agreeing with Node, into a fresh array that owns its buffer', () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 300, size: 'max' }), (bytes) => {
				const text = b64uEncode(bytes);
				expect(text).toBe(Buffer.from(bytes).toString('base64url'));
				const decoded = decode(text);
				expect(decoded).toEqual(bytes);
				expect([decoded.byteOffset, decoded.buffer.byteLength]).toEqual([0, bytes.length]);
			})
		);
	});

	it('decodes into a view of a larger buffer when the bytes fit, and counts them either way', () => {
		fc.assert(
			fc.property(
				fc.uint8Array({ maxLength: 100, size: 'max' }),
				fc.nat({ max: 7 }),
				fc.integer({ min: -3, max: 3 }),
				(bytes, offset, slack) => {
					const buffer = new Uint8Array(offset + 110).fill(0xee);
					const room = Math.max(0, bytes.length + slack);
					const target = buffer.subarray(offset, offset + room);
					expect(decodeInto(b64uEncode(bytes), target)).toBe(bytes.length);
					const expected = new Uint8Array(buffer.length).fill(0xee);
					if (bytes.length <= room) expected.set(bytes, offset);
					expect(buffer).toEqual(expected);
				}
			)
		);
	});

	it('rejects =, whitespace, other alphabets and impossible lengths', () => {
		fc.assert(
			fc.property(
				fc.uint8Array({ minLength: 1, maxLength: 120, size: 'max' }),
				fc.constantFrom('=', ' ', '\n', '\r', '\t', '+', '/', '.', 'é', '\u0000', '\u007f', '\u0080', '\u00ff', '\u0100'),
				fc.nat(),
				(bytes, intruder, where) => {
					const text = b64uEncode(bytes);
					const position = where % (text.length + 1);
					const spoiled = text.slice(0, position) + intruder + text.slice(position);
					expect(codeOfCall(() => decode(spoiled))).toBe('INVALID_INPUT');
					expect(codeOfCall(() => decodeInto(spoiled, new Uint8Array(100)))).toBe('INVALID_INPUT');
				}
			)
		);
		expect(codeOfCall(() => decode('A'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => decode('AAAAA'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => decode('AAAA===='))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => decodeInto('AAAAA', new Uint8Array(8)))).toBe('INVALID_INPUT');
	});

	it('rejects non-zero leftover bits, so every value has one spelling', () => {
		const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
		fc.assert(
			fc.property(
				fc.uint8Array({ minLength: 1, maxLength: 120, size: 'max' }).filter((b) => b.length % 3 !== 0),
				fc.integer({ min: 1, max: 15 }),
				(bytes, bits) => {
					const text = b64uEncode(bytes);
					const spareBits = bytes.length % 3 === 1 ? 0b1111 : 0b11;
					const last = alphabet.indexOf(text[text.length - 1]);
					const altered = text.slice(0, -1) + alphabet[last | (bits & spareBits || 1)];
					expect(codeOfCall(() => decode(altered))).toBe('INVALID_INPUT');
					expect(codeOfCall(() => decodeInto(altered, new Uint8Array(40)))).toBe('INVALID_INPUT');
				}
			)
		);
		expect(decode('AA')).toEqual(new Uint8Array([0]));
		expect(codeOfCall(() => decode('AB'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => decode('AAB'))).toBe('INVALID_INPUT');
	});

	it('agrees with the portable decoder on every text, short or long: the same bytes, or the same message', () => {
		const outcome = <T>(call: () => T): T | string => {
			try {
				return call();
			} catch (error) {
				return (error as Error).message;
			}
		};
		fc.assert(
			fc.property(
				fc.uint8Array({ maxLength: 120, size: 'max' }),
				fc.string({ unit: fc.constantFrom('A', 'B', 'Q', 'g', '-', '_', '=', ' ', '+', 'é'), maxLength: 4 }),
				(bytes, ending) => {
					const text = b64uEncode(bytes) + ending;
					const expected = outcome(() => b64uDecodePortable(text, 'tag'));
					expect(outcome(() => decode(text, 'tag'))).toEqual(expected);
					const count = typeof expected === 'string' ? expected : expected.length;
					expect(outcome(() => decodeInto(text, new Uint8Array(60), 'tag'))).toEqual(count);
				}
			)
		);
	});

	it('names the value that failed, and the first character outside the alphabet with its position', () => {
		expect(() => decode('a=', 'nonce')).toThrow(/^nonce is not base64url: character "=" at 1$/);
		expect(() => decode('AAAAAAé', 'nonce')).toThrow(/^nonce is not base64url: character "é" at 6$/);
		expect(() => decode('AAAA\u0080AAA')).toThrow(/^value is not base64url: character "\u0080" at 4$/);
		expect(() => decode('AAAAA', 'tag')).toThrow(/^tag is not base64url: impossible length 5$/);
		expect(() => decode('AB', 'tag')).toThrow(/^tag is not canonical base64url: leftover bits$/);
		expect(() => decode('AAB', 'tag')).toThrow(/^tag is not canonical base64url: leftover bits$/);
		expect(() => decode(42 as unknown as string)).toThrow(/^value must be a base64url string$/);
		expect(() => decodeInto(42, new Uint8Array(3))).toThrow(/^value must be a base64url string$/);
		expect(() => decodeInto('AAAAA=', new Uint8Array(4), 'nonce')).toThrow(/^nonce is not base64url: character "=" at 5$/);
		expect(codeOfCall(() => decode(42 as unknown as string))).toBe('INVALID_INPUT');
	});
});

describe('the runtime decoder', () => {
	it('decodes short values itself, longer ones natively: setFromBase64 first, else a view of the buffer last written', () => {
		let calls = 0;
		const counted: SetFromBase64 = function (this: Uint8Array, text, options) {
			calls++;
			return lenientSetFromBase64.call(this, text, options);
		};
		const both = strictB64uDecoder({ Uint8Array: { prototype: { setFromBase64: counted } }, Buffer });
		const [short, long] = [new Uint8Array(47).fill(1), new Uint8Array(48).fill(2)];
		expect([both.decode(b64uEncode(short)), calls]).toEqual([short, 0]);
		expect([both.decode(b64uEncode(long)), calls]).toEqual([long, 1]);
		expect([both.decodeInto(b64uEncode(long), new Uint8Array(48)), calls]).toEqual([48, 2]);
		// Node's Buffer: two values into one buffer, one into another, then the first buffer again
		const heap = new Uint8Array(200);
		const other = new Uint8Array(100);
		const values = [1, 2, 3, 4].map((value) => new Uint8Array(48).fill(value));
		expect(b64uDecodeInto(b64uEncode(values[0]), heap.subarray(0, 50))).toBe(48);
		expect(b64uDecodeInto(b64uEncode(values[1]), heap.subarray(50))).toBe(48);
		expect(b64uDecodeInto(b64uEncode(values[2]), other.subarray(1))).toBe(48);
		expect(b64uDecodeInto(b64uEncode(values[3]), heap.subarray(100))).toBe(48);
		const expected = [new Uint8Array(200), new Uint8Array(100)];
		expected[0].set(values[0], 0);
		expected[0].set(values[1], 50);
		expected[0].set(values[3], 100);
		expected[1].set(values[2], 1);
		expect([heap, other]).toEqual(expected);
	});

	it('requires an exact length where asked', () => {
		expect(() => b64uDecodeLength('AAAA', 24, 'nonce')).toThrow(/^nonce must be 24 bytes, got 3$/);
		expect(b64uDecodeLength('AAAA', 3, 'nonce')).toEqual(new Uint8Array(3));
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

describe("Node's Buffer decoder, new", () => {
	it('decodes into a buffer at its first use', () => {
		const fresh = strictB64uDecoder({ Buffer });
		const target = new Uint8Array(60);
		const value = new Uint8Array(48).fill(7);
		expect(fresh.decodeInto(b64uEncode(value), target.subarray(4))).toBe(48);
		expect(target.subarray(4, 52)).toEqual(value);
	});
});

describe('the first character past ASCII', () => {
	it('is refused at any place of a group, the last two or three included, and named', () => {
		for (const decode of [b64uDecode, b64uDecodePortable])
			for (const text of ['\u0080AAA', 'A\u0080AA', 'AA\u0080A', 'AAA\u0080', '\u0080A', 'A\u0080', 'AA\u0080', 'AAAAA\u0080'])
				expect(() => decode(text, 'tag'), JSON.stringify(text)).toThrow(
					`tag is not base64url: character "\u0080" at ${text.indexOf('\u0080')}`
				);
	});
});
