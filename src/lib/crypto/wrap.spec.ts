import { beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, b64uEncode } from './encoding';
import { generateX25519KeyPair } from './keys';
import { initCrypto, sodium } from './sodium';
import { codeOfCall } from '$test-support/error-codes';
import { openConversationKey, sealConversationKey, sealedWrapLength, wrapPayload } from './wrap';

beforeAll(() => initCrypto());

describe('conversation key wraps (contract 2.4, 6.1)', () => {
	const conversationKey = new Uint8Array(32).map((_, i) => i);
	const sealFor = (recipientPublicKey: Uint8Array, conversationId: string) =>
		sealConversationKey({ conversationKey, conversationId, keyVersion: 1, recipientPublicKey });

	it('seals for any recipient and opens with its key; sealed adds 48 bytes', () => {
		const recipient = generateX25519KeyPair();
		const wrap = sealFor(recipient.publicKey, 'conv_abc');
		expect(b64uDecode(wrap.sealed).length).toBe(sealedWrapLength('conv_abc'));
		expect(sealedWrapLength('conv_abc')).toBe(48 + 40 + 8);
		expect(openConversationKey(wrap, 'conv_abc', [recipient])).toEqual(conversationKey);
	});

	it('tries [current, previous, …] and moves on only on DECRYPT_FAILED', () => {
		const previous = generateX25519KeyPair();
		const current = generateX25519KeyPair();
		const wrap = sealFor(previous.publicKey, 'conv_abc');
		expect(openConversationKey(wrap, 'conv_abc', [current, previous])).toEqual(conversationKey);
		expect(codeOfCall(() => openConversationKey(wrap, 'conv_abc', [current]))).toBe('DECRYPT_FAILED');
	});

	it('KEY_MISMATCH ends the attempt instead of moving on', () => {
		const first = generateX25519KeyPair();
		const second = generateX25519KeyPair();
		const forOtherConversation = sealFor(first.publicKey, 'conv_other');
		const sealedForSecond = sealFor(second.publicKey, 'conv_abc');
		// Had it moved on, the second key's DECRYPT_FAILED would be the answer.
		expect(codeOfCall(() => openConversationKey({ ...forOtherConversation }, 'conv_abc', [first, second]))).toBe('KEY_MISMATCH');
		expect(openConversationKey(sealedForSecond, 'conv_abc', [first, second])).toEqual(conversationKey);
	});

	it('checks keyVersion and the id before opening (INVALID_INPUT)', () => {
		const recipient = generateX25519KeyPair();
		const wrap = sealFor(recipient.publicKey, 'conv_abc');
		expect(codeOfCall(() => openConversationKey({ ...wrap, keyVersion: '1' }, 'conv_abc', [recipient]))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => openConversationKey({ ...wrap, keyVersion: 2 ** 31 }, 'conv_abc', [recipient]))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => openConversationKey(wrap, 'conv_abc\n', [recipient]))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => openConversationKey({ ...wrap, sealed: `${wrap.sealed}=` }, 'conv_abc', [recipient]))).toBe('INVALID_INPUT');
	});

	it('a payload that is too short or not valid UTF-8 is KEY_MISMATCH', () => {
		const recipient = generateX25519KeyPair();
		const seal = (payload: Uint8Array) => ({ keyVersion: 1, sealed: b64uEncode(sodium().crypto_box_seal(payload, recipient.publicKey)) });
		const valid = wrapPayload(conversationKey, 'conv_abc', 1);
		expect(codeOfCall(() => openConversationKey(seal(valid.subarray(0, 40)), 'conv_abc', [recipient]))).toBe('KEY_MISMATCH');
		const badUtf8 = valid.slice();
		badUtf8[40] = 0xff;
		expect(codeOfCall(() => openConversationKey(seal(badUtf8), 'conv_abc', [recipient]))).toBe('KEY_MISMATCH');
	});

	it('opens only a payload that is SCK1, of the wrap’s keyVersion and this conversation, saying which check failed', () => {
		const recipient = generateX25519KeyPair();
		const seal = (payload: Uint8Array, keyVersion = 1) => ({
			keyVersion,
			sealed: b64uEncode(sodium().crypto_box_seal(payload, recipient.publicKey))
		});
		const open =
			(wrap: unknown, conversationId = 'conv_abc') =>
			() =>
				openConversationKey(wrap, conversationId, [recipient]);
		const shortest = wrapPayload(conversationKey, 'c', 1);
		expect(openConversationKey(seal(shortest), 'c', [recipient])).toEqual(conversationKey);
		expect(open(seal(shortest.subarray(0, 40)), 'c')).toThrow('the wrap payload is not SCK1');
		const otherMagic = wrapPayload(conversationKey, 'conv_abc', 1);
		otherMagic[3] = '2'.charCodeAt(0);
		expect(open(seal(otherMagic))).toThrow('the wrap payload is not SCK1');
		expect(open(seal(wrapPayload(conversationKey, 'conv_abc', 2)))).toThrow('the wrap payload names another keyVersion');
		expect(open(seal(wrapPayload(conversationKey, 'conv_abc', 1), 2))).toThrow('the wrap payload names another keyVersion');
		const badUtf8 = wrapPayload(conversationKey, 'conv_abc', 1);
		badUtf8[40] = 0xff;
		expect(open(seal(badUtf8))).toThrow('the wrap payload conversation id is not UTF-8');
		expect(open(seal(wrapPayload(conversationKey, 'conv_abd', 1)))).toThrow('the wrap belongs to another conversation');
		expect(open(sealFor(generateX25519KeyPair().publicKey, 'conv_abc'))).toThrow('the wrap does not open with this key');
	});

	it('checks every key given before opening with any, and needs at least one', () => {
		const recipient = generateX25519KeyPair();
		const wrap = sealFor(recipient.publicKey, 'conv_abc');
		expect(() => openConversationKey(wrap, 'conv_abc', [])).toThrow('no key to open the wrap with');
		expect(codeOfCall(() => openConversationKey(wrap, 'conv_abc', []))).toBe('DECRYPT_FAILED');
		const damaged = { publicKey: recipient.publicKey, secretKey: recipient.secretKey.subarray(1) };
		expect(() => openConversationKey(wrap, 'conv_abc', [recipient, damaged])).toThrow(/^recipient secret key /);
		expect(() => openConversationKey(wrap, 'conv_abc', [recipient, { ...recipient, publicKey: new Uint8Array(31) }])).toThrow(
			/^recipient public key /
		);
		expect(() => openConversationKey({ keyVersion: 1, sealed: '!' }, 'conv_abc', [recipient])).toThrow(/^wrap sealed is not base64url/);
		expect(() => openConversationKey({ sealed: wrap.sealed }, 'conv_abc', [recipient])).toThrow(/^wrap keyVersion /);
		expect(() => openConversationKey(null, 'conv_abc', [recipient])).toThrow(/^wrap keyVersion /);
		expect(() => openConversationKey(wrap, 'conv abc', [recipient])).toThrow(/^conversationId /);
	});

	it('names a malformed key, id or recipient when sealing', () => {
		expect(() => wrapPayload(new Uint8Array(31), 'conv_abc', 1)).toThrow(/^conversation key /);
		expect(() => wrapPayload(conversationKey, 'conv abc', 1)).toThrow(/^conversationId /);
		expect(() =>
			sealConversationKey({ conversationKey, conversationId: 'conv_abc', keyVersion: 1, recipientPublicKey: new Uint8Array(16) })
		).toThrow(/^recipient public key /);
		expect(codeOfCall(() => wrapPayload(conversationKey, 'conv_abc', 0))).toBe('INVALID_INPUT');
	});
});
