import { beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, b64uEncode } from './encoding';
import { generateX25519KeyPair } from './keys';
import { initCrypto, sodium } from './sodium';
import { codeOfCall } from './test-support';
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
});
