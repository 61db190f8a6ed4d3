import { beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode } from './encoding';
import {
	buildInviteLink,
	computeInviteBinding,
	generateInviteSecret,
	inviteBindingMessage,
	parseInviteLinkFragment,
	verifyInviteBinding
} from './invite';
import { fingerprint, generateX25519KeyPair } from './keys';
import { initCrypto } from './sodium';
import { codeOfCall } from '$test-support/error-codes';
import { sealConversationKey } from './wrap';

beforeAll(() => initCrypto());

describe('invitation links (contract 6.3)', () => {
	it('carry the secret and the company key’s fingerprint in the fragment, and read back strictly', () => {
		const secret = generateInviteSecret();
		const company = generateX25519KeyPair();
		const link = buildInviteLink('https://service.example/i/abc?x=1', secret, company.publicKey);
		expect(link).toBe(`https://service.example/i/abc?x=1#s=${b64uEncode(secret)}&fp=${b64uEncode(fingerprint(company.publicKey))}`);
		expect(parseInviteLinkFragment(link)).toEqual({
			inviteUrl: 'https://service.example/i/abc?x=1',
			inviteSecret: secret,
			fingerprint: fingerprint(company.publicKey)
		});
		// parameters in another order, unknown or valueless ones, are read the same
		const reordered = `https://s.example/i#fp=${b64uEncode(fingerprint(company.publicKey))}&x&=y&s=${b64uEncode(secret)}`;
		expect(parseInviteLinkFragment(reordered).inviteSecret).toEqual(secret);
	});

	it('refuse a URL that cannot carry a fragment, and a fragment that is not exactly a secret and a fingerprint', () => {
		const secret = generateInviteSecret();
		const company = generateX25519KeyPair().publicKey;
		for (const url of ['', 'https://s.example/i#already', 42]) {
			expect(() => buildInviteLink(url as string, secret, company), String(url)).toThrow('inviteUrl must be a URL without a fragment');
		}
		expect(() => buildInviteLink('https://s.example/i', secret.subarray(1), company)).toThrow(/^invite secret /);
		const s = b64uEncode(secret);
		const fp = b64uEncode(fingerprint(company));
		expect(() => parseInviteLinkFragment(`https://s.example/i?s=${s}&fp=${fp}`)).toThrow('the invitation link has no fragment');
		expect(() => parseInviteLinkFragment(`#s=${s}&fp=${fp}`)).not.toThrow();
		expect(parseInviteLinkFragment(`https://s.example/i#s=${s}&fp=${fp}&fpx`).fingerprint).toEqual(fingerprint(company)); // no =: ignored
		expect(() => parseInviteLinkFragment(`https://s.example/i#s=${s}`)).toThrow(/^fingerprint must be a base64url string/);
		expect(() => parseInviteLinkFragment(`https://s.example/i#fp=${fp}`)).toThrow(/^invite secret must be a base64url string/);
		expect(() => parseInviteLinkFragment(`https://s.example/i#s=${s.slice(0, 40)}&fp=${fp}`)).toThrow(
			'the invitation link fragment is malformed'
		);
		expect(() => parseInviteLinkFragment(`https://s.example/i#s=${s}&fp=${fp.slice(0, 40)}`)).toThrow(
			'the invitation link fragment is malformed'
		);
		expect(() => parseInviteLinkFragment(`https://s.example/i#=${s}&fp=${fp}`)).toThrow(/^invite secret /);
	});
});

describe('invite bindings (contract 6.3)', () => {
	const conversationId = 'conv_binding01';
	const user = () => generateX25519KeyPair().publicKey;
	const wrap = () =>
		sealConversationKey({ conversationKey: new Uint8Array(32), conversationId, keyVersion: 3, recipientPublicKey: user() });

	it('bind the conversation, the user’s key and the company wrap as sent, under the invite secret', () => {
		const userPublicKey = user();
		const wrapForCompany = wrap();
		expect(inviteBindingMessage({ conversationId, userPublicKey, wrapForCompany })).toBe(
			`Service|v1|invite-binding|${conversationId}|${b64uEncode(userPublicKey)}|3|${wrapForCompany.sealed}`
		);
		const inviteSecret = generateInviteSecret();
		const input = { inviteSecret, conversationId, userPublicKey, wrapForCompany };
		const binding = b64uEncode(computeInviteBinding(input));
		expect(() => verifyInviteBinding(binding, input)).not.toThrow();
		expect(() => verifyInviteBinding(binding, { ...input, userPublicKey: user() })).toThrow(
			"the user's key is not bound to the invitation"
		);
		expect(() => verifyInviteBinding(binding, { ...input, inviteSecret: generateInviteSecret() })).toThrow(
			"the user's key is not bound to the invitation"
		);
		expect(() => verifyInviteBinding(`${binding}=`, input)).toThrow('inviteBinding is not base64url');
		expect(codeOfCall(() => verifyInviteBinding(42, input))).toBe('BINDING_INVALID');
		expect(codeOfCall(() => verifyInviteBinding(binding.slice(0, 42), input))).toBe('BINDING_INVALID');
	});

	it('name a malformed part of what they bind', () => {
		const input = { conversationId, userPublicKey: user(), wrapForCompany: wrap() };
		expect(() => inviteBindingMessage({ ...input, conversationId: 'conv id' })).toThrow(/^conversationId /);
		expect(() => inviteBindingMessage({ ...input, userPublicKey: new Uint8Array(31) })).toThrow(/^userPublicKey /);
		expect(() => inviteBindingMessage({ ...input, wrapForCompany: { keyVersion: 0, sealed: 'x' } })).toThrow(/^wrapForCompany keyVersion /);
		expect(() => inviteBindingMessage({ ...input, wrapForCompany: undefined as never })).toThrow(/^wrapForCompany keyVersion /);
		expect(() => inviteBindingMessage({ ...input, wrapForCompany: { keyVersion: 1, sealed: 7 as never } })).toThrow(
			'wrapForCompany sealed must be a string'
		);
		expect(() => computeInviteBinding({ ...input, inviteSecret: new Uint8Array(16) })).toThrow(/^invite secret /);
	});
});
