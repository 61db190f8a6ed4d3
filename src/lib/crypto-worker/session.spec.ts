import { beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode } from '../crypto/encoding';
import { generateEd25519KeyPair, generateX25519KeyPair } from '../crypto/keys';
import { initCrypto } from '../crypto/sodium';
import { sealConversationKey } from '../crypto/wrap';
import type { OpenedKey } from '../keystore/keystore';
import { KeySession } from './session';
import { codeOfCall } from '$test-support/error-codes';

beforeAll(async () => {
	await initCrypto();
});

function opened(kind: 'agent' | 'signing'): OpenedKey {
	const pair = kind === 'agent' ? generateX25519KeyPair() : generateEd25519KeyPair();
	const publicKey = b64uEncode(pair.publicKey);
	return { info: { kind, publicKey, fingerprint: '', createdAt: '', updatedAt: '' }, publicKey: pair.publicKey, secretKey: pair.secretKey };
}

describe('the keys a worker holds', () => {
	it('hands out a handle per kind, and the same handle when the same key is unlocked again', () => {
		const session = new KeySession();
		const agent = opened('agent');
		const handle = session.hold(agent).handle;
		expect(handle).toMatch(/^key_[A-Za-z0-9_-]{22}$/);
		const again = { ...agent, secretKey: agent.secretKey.slice() };
		expect(session.hold(again).handle).toBe(handle);
		expect(again.secretKey).toEqual(new Uint8Array(32)); // the duplicate copy is wiped
		expect(session.require(handle, 'agent').secretKey).toBe(agent.secretKey);
	});

	it('a handle of another kind is INVALID_INPUT, an unknown or stale one LOCKED', () => {
		const session = new KeySession();
		const agent = session.hold(opened('agent'));
		const signing = session.hold(opened('signing'));
		expect(codeOfCall(() => session.require(agent.handle, 'signing'))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => session.require('key_unknown', 'agent'))).toBe('LOCKED');
		session.lock();
		expect(codeOfCall(() => session.require(signing.handle, 'signing'))).toBe('LOCKED');
	});

	it('opens wraps for the agent and caches K; lock wipes secrets and conversation keys', () => {
		const session = new KeySession();
		const agentKey = opened('agent');
		const agent = session.hold(agentKey);
		const signing = session.hold(opened('signing'));
		const conversationKey = new Uint8Array(32).fill(9);
		const wrap = sealConversationKey({ conversationKey, conversationId: 'conv_1', keyVersion: 3, recipientPublicKey: agentKey.publicKey });
		expect(session.openConversationKey(agent.handle, 'conv_1', wrap)).toEqual({ conversationId: 'conv_1', keyVersion: 3 });
		const cached = session.conversationKey('conv_1');
		expect(cached.key).toEqual(conversationKey);
		expect(codeOfCall(() => session.openConversationKey(signing.handle, 'conv_1', wrap))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => session.conversationKey('conv_2'))).toBe('CONVERSATION_KEY_NOT_OPEN');

		session.lock();
		expect(agent.secretKey).toEqual(new Uint8Array(32));
		expect(signing.secretKey).toEqual(new Uint8Array(64));
		expect(cached.key).toEqual(new Uint8Array(32));
		expect(codeOfCall(() => session.conversationKey('conv_1'))).toBe('LOCKED');
	});

	it('another agent key replaces the first and drops its conversation keys', () => {
		const session = new KeySession();
		const first = opened('agent');
		const held = session.hold(first);
		session.openConversationKey(
			held.handle,
			'conv_1',
			sealConversationKey({
				conversationKey: new Uint8Array(32),
				conversationId: 'conv_1',
				keyVersion: 1,
				recipientPublicKey: first.publicKey
			})
		);
		const second = session.hold(opened('agent'));
		expect(second.handle).not.toBe(held.handle);
		expect(first.secretKey).toEqual(new Uint8Array(32));
		expect(codeOfCall(() => session.conversationKey('conv_1'))).toBe('CONVERSATION_KEY_NOT_OPEN');
		expect(codeOfCall(() => session.require(held.handle, 'agent'))).toBe('LOCKED');
	});

	it('forgetting the signing key keeps the conversations open; each refusal says what to do', () => {
		const session = new KeySession();
		const agentKey = opened('agent');
		const agent = session.hold(agentKey);
		const signing = session.hold(opened('signing'));
		const wrap = sealConversationKey({
			conversationKey: new Uint8Array(32).fill(1),
			conversationId: 'conv_1',
			keyVersion: 1,
			recipientPublicKey: agentKey.publicKey
		});
		session.openConversationKey(agent.handle, 'conv_1', wrap);
		session.forget('signing');
		expect(session.conversationKey('conv_1').key).toEqual(new Uint8Array(32).fill(1));
		expect(() => session.require(signing.handle, 'signing')).toThrow('the signing key is locked: unlock it with its passphrase first');
		expect(() => session.require(agent.handle, 'signing')).toThrow('this operation needs the signing key, not the agent key');
		expect(() => session.conversationKey('conv_2')).toThrow('no key is open for conversation conv_2: open its wrap first');
		session.forget('agent');
		expect(() => session.conversationKey('conv_1')).toThrow('the agent key is locked: unlock it with its passphrase first');
	});
});
