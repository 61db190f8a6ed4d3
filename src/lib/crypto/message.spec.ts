import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeOfCall } from '$test-support/error-codes';
import { b64uDecode, b64uEncode, utf8Encode } from './encoding';
import {
	decryptMessage,
	encryptMessage,
	envelopeShapeProblem,
	MAX_MESSAGE_CIPHERTEXT_BYTES,
	messageAd,
	newClientMessageId,
	pad,
	paddedEnvelopeParts,
	paddedLength,
	unpad
} from './message';
import { initCrypto, rawSodium, sodium } from './sodium';

beforeAll(() => initCrypto());

const key = new Uint8Array(32).fill(3);
const context = { conversationId: 'conv_1', senderType: 'company' as const, clientMessageId: 'srv_1', keyVersion: 1, conversationKey: key };

describe('padding (contract 6.5)', () => {
	it('pads to the next multiple of 256', () => {
		expect([0, 1, 255, 256, 511, 512, 65_536].map(paddedLength)).toEqual([256, 256, 256, 512, 512, 768, 65_792]);
	});

	it('round-trips any length and always adds the 0x80 marker', () => {
		fc.assert(
			fc.property(fc.uint8Array({ maxLength: 1500 }), (bytes) => {
				const padded = pad(bytes);
				expect(padded.length).toBe(paddedLength(bytes.length));
				expect(padded[bytes.length]).toBe(0x80);
				expect(unpad(padded)).toEqual(bytes);
			})
		);
	});

	it('unpads views at any alignment, and refuses a stray byte anywhere after the marker', () => {
		fc.assert(
			fc.property(
				fc.uint8Array({ maxLength: 600, size: 'max' }),
				fc.nat({ max: 7 }),
				fc.nat(),
				fc.integer({ min: 1, max: 255 }).filter((value) => value !== 0x80),
				(bytes, offset, where, stray) => {
					const padded = pad(bytes);
					const view = new Uint8Array(offset + padded.length).subarray(offset);
					view.set(padded);
					expect(unpad(view)).toEqual(bytes);
					const zeros = padded.length - bytes.length - 1;
					if (zeros > 0) {
						view[bytes.length + 1 + (where % zeros)] = stray;
						expect(() => unpad(view)).toThrow('padding has no 0x80 marker');
					}
				}
			)
		);
	});

	it('refuses padding without marker, with a wrong marker, or longer than a block', () => {
		expect(codeOfCall(() => unpad(new Uint8Array(256)))).toBe('BAD_PADDING');
		const wrongMarker = new Uint8Array(256);
		wrongMarker[10] = 0x81;
		expect(codeOfCall(() => unpad(wrongMarker))).toBe('BAD_PADDING');
		const tooLong = new Uint8Array(512);
		tooLong[100] = 0x80;
		expect(codeOfCall(() => unpad(tooLong))).toBe('BAD_PADDING');
	});
});

describe('messages (contract 6.2, 6.5)', () => {
	it('round-trip any text up to the limit, with a fresh nonce each time', () => {
		fc.assert(
			fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
				const first = encryptMessage({ ...context, text });
				const second = encryptMessage({ ...context, text });
				expect(first.nonce).not.toBe(second.nonce);
				expect(decryptMessage(first, context)).toBe(text);
				expect(envelopeShapeProblem(first)).toBeNull();
			}),
			{ numRuns: 50 }
		);
	});

	it('refuses text over 65,536 UTF-8 bytes and lone surrogates', () => {
		expect(() => encryptMessage({ ...context, text: 'a'.repeat(65_536) })).not.toThrow();
		expect(codeOfCall(() => encryptMessage({ ...context, text: 'a'.repeat(65_537) }))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => encryptMessage({ ...context, text: 'é'.repeat(32_769) }))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => encryptMessage({ ...context, text: '\ud800' }))).toBe('INVALID_INPUT');
	});

	it('any single flipped byte of the ciphertext is DECRYPT_FAILED', () => {
		const envelope = encryptMessage({ ...context, text: 'hello' });
		const ciphertext = b64uDecode(envelope.ciphertext);
		fc.assert(
			fc.property(fc.nat({ max: ciphertext.length - 1 }), fc.integer({ min: 1, max: 255 }), (offset, mask) => {
				const tampered = ciphertext.slice();
				tampered[offset] ^= mask;
				expect(codeOfCall(() => decryptMessage({ ...envelope, ciphertext: b64uEncode(tampered) }, context))).toBe('DECRYPT_FAILED');
			}),
			{ numRuns: 100 }
		);
	});

	it('a ciphertext longer than the longest text can make is an impossible length', () => {
		const envelope = encryptMessage({ ...context, text: 'x'.repeat(65_536) });
		expect(b64uDecode(envelope.ciphertext).length).toBe(65_808);
		expect(decryptMessage(envelope, context)).toHaveLength(65_536);
		const longer = b64uEncode(new Uint8Array(65_808 + 256));
		expect(codeOfCall(() => decryptMessage({ ...envelope, ciphertext: longer }, context))).toBe('DECRYPT_FAILED');
	});

	it('decodes into the WASM heap: refuses values too long for it by length, and survives the heap growing', () => {
		const envelope = encryptMessage({ ...context, text: 'before and after' });
		expect(() => decryptMessage({ ...envelope, nonce: b64uEncode(new Uint8Array(25)) }, context)).toThrow('nonce must be 24 bytes, got 25');
		const tooLong = b64uEncode(new Uint8Array(16 + 300 * 256));
		expect(() => decryptMessage({ ...envelope, ciphertext: tooLong }, context)).toThrow('impossible ciphertext length 76816');
		expect(() => decryptMessage({ ...envelope, ciphertext: tooLong + '=' }, context)).toThrow(
			/^ciphertext is not base64url: character "="/
		);
		expect(decryptMessage(envelope, context)).toBe('before and after');
		const lib = rawSodium();
		const heapLength = lib.HEAPU8.length;
		const grown = lib._malloc(heapLength * 2);
		expect(lib.HEAPU8.length).toBeGreaterThan(heapLength);
		lib._free(grown);
		expect(decryptMessage(envelope, context)).toBe('before and after');
	});

	it('leaves neither the key nor the text in the WASM heap, whether it opens or refuses', () => {
		// drawn and sealed outside libsodium, so that only decryptMessage ever writes them into its heap
		const secretKey = crypto.getRandomValues(new Uint8Array(32));
		const nonce = crypto.getRandomValues(new Uint8Array(24));
		const text = `secret text ${b64uEncode(crypto.getRandomValues(new Uint8Array(18)))}`;
		const ad = utf8Encode(messageAd(context));
		const seal = (padded: Uint8Array) => ({
			v: 1,
			scheme: 'sc1',
			keyVersion: context.keyVersion,
			clientMessageId: context.clientMessageId,
			nonce: b64uEncode(nonce),
			ciphertext: b64uEncode(xchacha20poly1305(secretKey, nonce, ad).encrypt(padded))
		});
		const badPadding = pad(utf8Encode(text));
		badPadding[badPadding.length - 1] = 1;
		const inHeap = (bytes: Uint8Array) => Buffer.from(rawSodium().HEAPU8.buffer).includes(Buffer.from(bytes));
		expect(decryptMessage(seal(pad(utf8Encode(text))), { ...context, conversationKey: secretKey })).toBe(text);
		expect(codeOfCall(() => decryptMessage(seal(badPadding), { ...context, conversationKey: secretKey }))).toBe('BAD_PADDING');
		expect(inHeap(utf8Encode(text))).toBe(false);
		expect(inHeap(secretKey)).toBe(false);
	});

	it('is bound to its conversation, sender type and key', () => {
		const envelope = encryptMessage({ ...context, text: 'hello' });
		expect(codeOfCall(() => decryptMessage(envelope, { ...context, conversationId: 'conv_2' }))).toBe('DECRYPT_FAILED');
		expect(codeOfCall(() => decryptMessage(envelope, { ...context, senderType: 'user' }))).toBe('DECRYPT_FAILED');
		expect(codeOfCall(() => decryptMessage(envelope, { ...context, conversationKey: new Uint8Array(32) }))).toBe('DECRYPT_FAILED');
		expect(codeOfCall(() => decryptMessage(envelope, { ...context, conversationId: 'conv 2' }))).toBe('INVALID_INPUT');
	});

	it('takes the sender type from the context, never from a field the envelope carries (contract 6.2)', () => {
		const fromCustomer = encryptMessage({ ...context, senderType: 'user', clientMessageId: 'usr_1', text: 'from the customer' });
		const claimingCompany = { ...fromCustomer, senderType: 'company' };
		expect(decryptMessage(claimingCompany, { ...context, senderType: 'user' })).toBe('from the customer');
		expect(codeOfCall(() => decryptMessage({ ...fromCustomer, senderType: 'user' }, context))).toBe('DECRYPT_FAILED');
	});

	it('an authentic ciphertext whose length minus the tag is not a multiple of 256 is DECRYPT_FAILED, not BAD_PADDING (step 4)', () => {
		const nonce = new Uint8Array(24).fill(9);
		const ad = messageAd({ conversationId: 'conv_1', senderType: 'company', clientMessageId: 'srv_1', keyVersion: 1 });
		for (const length of [257, 300, 511]) {
			const plaintext = new Uint8Array(length).fill(0x41);
			const ciphertext = sodium().crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, null, nonce, key);
			const envelope = {
				v: 1,
				scheme: 'sc1',
				keyVersion: 1,
				clientMessageId: 'srv_1',
				nonce: b64uEncode(nonce),
				ciphertext: b64uEncode(ciphertext)
			};
			expect(
				codeOfCall(() => decryptMessage(envelope, context)),
				String(length)
			).toBe('DECRYPT_FAILED');
		}
	});

	it('makes srv_ ids of 16 random bytes', () => {
		const id = newClientMessageId();
		expect(id).toMatch(/^srv_[A-Za-z0-9_-]{22}$/);
		expect(newClientMessageId()).not.toBe(id);
	});

	it('names the shape problem a service would reject (contract 4.2)', () => {
		const envelope = encryptMessage({ ...context, text: 'hello' });
		expect(envelopeShapeProblem({ ...envelope, nonce: b64uEncode(new Uint8Array(23)) })).toMatch(/nonce must be 24 bytes, got 23/);
		expect(envelopeShapeProblem({ ...envelope, ciphertext: b64uEncode(new Uint8Array(256)) })).toMatch(/at least 272/);
		expect(envelopeShapeProblem({ ...envelope, ciphertext: b64uEncode(new Uint8Array(273)) })).toMatch(/multiple of 256/);
		expect(envelopeShapeProblem({ ...envelope, ciphertext: b64uEncode(new Uint8Array(67_600)) })).toMatch(/at most 67584/);
		expect(envelopeShapeProblem({ ...envelope, v: '1' })).toMatch(/v must be 1/);
	});

	it('names each shape problem in the order a service checks them, and accepts a well-formed envelope', () => {
		const envelope = encryptMessage({ ...context, text: 'hello' });
		expect(envelopeShapeProblem(envelope)).toBeNull();
		for (const [value, problem] of [
			[null, 'encryption must be an object'],
			['text', 'encryption must be an object'],
			[[envelope], 'encryption must be an object'],
			[{ ...envelope, scheme: 'sc2' }, 'scheme must be sc1'],
			[{ ...envelope, keyVersion: 0 }, 'keyVersion must be an integer from 1 to 2^31-1'],
			[{ ...envelope, clientMessageId: 'a b' }, 'clientMessageId must match ^[A-Za-z0-9_-]{1,128}$'],
			[{ ...envelope, nonce: 'a=' }, 'nonce is not base64url: character "=" at 1'],
			[{ ...envelope, ciphertext: 42 }, 'ciphertext must be a base64url string'],
			[{ ...envelope, ciphertext: b64uEncode(new Uint8Array(16 + 263 * 256)) }, null],
			[{ ...envelope, ciphertext: b64uEncode(new Uint8Array(16 + 264 * 256)) }, 'ciphertext must be at most 67584 bytes, got 67600']
		] as const) {
			expect(envelopeShapeProblem(value), JSON.stringify(value).slice(0, 60)).toBe(problem);
		}
	});

	it('says which step of decryption refused an envelope', () => {
		const envelope = encryptMessage({ ...context, text: 'hello' });
		const decrypt =
			(changes: Record<string, unknown>, overrides: Partial<typeof context> = {}) =>
			() =>
				decryptMessage({ ...envelope, ...changes }, { ...context, ...overrides });
		expect(decrypt({ scheme: 'sc2' })).toThrow('envelope must be v 1, scheme sc1');
		expect(decrypt({ nonce: b64uEncode(new Uint8Array(23)) })).toThrow('nonce must be 24 bytes, got 23');
		expect(decrypt({ nonce: '!' })).toThrow(/^nonce is not base64url/);
		expect(decrypt({ ciphertext: '!' })).toThrow(/^ciphertext is not base64url/);
		expect(decrypt({ ciphertext: b64uEncode(new Uint8Array(16)) })).toThrow('impossible ciphertext length 16');
		// the longest text pads to 65,792 bytes: one block more is no message of ours
		expect(decrypt({ ciphertext: b64uEncode(new Uint8Array(16 + 258 * 256)) })).toThrow('impossible ciphertext length 66064');
		expect(decrypt({ ciphertext: b64uEncode(new Uint8Array(16 + 257 * 256)) })).toThrow('the message does not authenticate');
		expect(decrypt({ clientMessageId: '' })).toThrow(/^clientMessageId /);
		expect(decrypt({}, { conversationId: 'conv 1' })).toThrow(/^conversationId /);
		expect(decrypt({}, { senderType: 'bot' as never })).toThrow('senderType must be user or company');
		expect(decrypt({}, { conversationKey: new Uint8Array(31) })).toThrow(/^conversation key /);
		expect(() => encryptMessage({ ...context, text: 'x', conversationKey: new Uint8Array(31) })).toThrow(/^conversation key /);
		expect(() => encryptMessage({ ...context, text: 'x', nonce: new Uint8Array(23) })).toThrow(/^nonce /);
		expect(() => encryptMessage({ ...context, text: 'é'.repeat(32_769) })).toThrow(
			'message text must be at most 65536 UTF-8 bytes, got 65538'
		);
		expect(() => encryptMessage({ ...context, text: '\ud800' })).toThrow('message text contains a lone surrogate');
	});

	it('refuses padding of no whole block, or without marker, naming why', () => {
		expect(() => unpad(new Uint8Array(0))).toThrow('padded length is not a multiple of 256');
		expect(() => unpad(new Uint8Array(257))).toThrow('padded length is not a multiple of 256');
		expect(() => unpad(new Uint8Array(256))).toThrow('padding has no 0x80 marker');
		const long = new Uint8Array(512);
		long[0] = 0x80;
		expect(() => unpad(long)).toThrow('padding is longer than 256 bytes');
		const first = new Uint8Array(256);
		first[0] = 0x80;
		expect(unpad(first)).toEqual(new Uint8Array(0));
	});
});

describe('unpadding four bytes at a time', () => {
	it('finds the marker in any word of the block, the last one included, at any alignment', () => {
		for (const offset of [0, 1, 4])
			for (let length = 0; length < 256; length++) {
				const bytes = new Uint8Array(length).fill(0x41);
				const view = new Uint8Array(offset + 256).subarray(offset);
				view.set(pad(bytes));
				expect(unpad(view), `${length} bytes at ${offset}`).toEqual(bytes);
			}
	});
});

describe('the envelope parts and the text, named when refused', () => {
	it('names the nonce, the ciphertext and the key of a record padded like a message', () => {
		const envelope = encryptMessage({ ...context, text: 'hello' });
		const parts = (changes: Record<string, unknown>, conversationKey = key) =>
			paddedEnvelopeParts({ ...envelope, ...changes }, conversationKey, MAX_MESSAGE_CIPHERTEXT_BYTES);
		expect(parts({})).toEqual({ nonce: b64uDecode(envelope.nonce), ciphertext: b64uDecode(envelope.ciphertext) });
		expect(() => parts({ nonce: 'a=' })).toThrow('nonce is not base64url: character "=" at 1');
		expect(() => parts({ ciphertext: 42 })).toThrow('ciphertext must be a base64url string');
		expect(() => parts({}, new Uint8Array(31))).toThrow('conversation key must be 32 bytes, got 31');
	});

	it('an authentic message whose text is not UTF-8 is refused as message text', () => {
		const nonce = new Uint8Array(24).fill(5);
		const ad = utf8Encode(messageAd(context));
		const ciphertext = xchacha20poly1305(key, nonce, ad).encrypt(pad(new Uint8Array([0x41, 0xff])));
		const envelope = {
			v: 1,
			scheme: 'sc1',
			keyVersion: 1,
			clientMessageId: 'srv_1',
			nonce: b64uEncode(nonce),
			ciphertext: b64uEncode(ciphertext)
		};
		expect(() => decryptMessage(envelope, context)).toThrow('message text is not valid UTF-8');
	});

	it("opens a page's first message: the heap's views are taken before the first use", async () => {
		// a second instance of the module, which has opened nothing yet (libsodium, already loaded, is shared)
		const firstUse = './message?first-use';
		const fresh: typeof import('./message') = await import(/* @vite-ignore */ firstUse);
		expect(fresh.decryptMessage).not.toBe(decryptMessage);
		const envelope = encryptMessage({ ...context, text: 'the first one' });
		expect(fresh.decryptMessage(envelope, context)).toBe('the first one');
	});
});
