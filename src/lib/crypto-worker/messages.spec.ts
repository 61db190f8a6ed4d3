import { beforeAll, describe, expect, it } from 'vitest';
import { buildAttachmentMeta, encryptAttachment } from '../crypto/attachment';
import { decryptMessage, encryptMessage } from '../crypto/message';
import { initCrypto } from '../crypto/sodium';
import { AttachmentRefs } from './attachment-refs';
import { decryptHistory, encryptReply, MAX_HISTORY_BATCH } from './messages';
import type { KeySession } from './session';
import { sessionWithOpenKey } from '$test-support/key-session';
import { codeOfCall } from '$test-support/error-codes';

const conversationId = 'conv_messagesSpec1';
const conversationKey = new Uint8Array(32).fill(4);
let session: KeySession;
const refs = new AttachmentRefs();

beforeAll(async () => {
	await initCrypto();
	session = sessionWithOpenKey(conversationId, conversationKey, 2);
});

const envelope = (senderType: 'user' | 'company', text: string, clientMessageId = 'usr_1') =>
	encryptMessage({ conversationKey, conversationId, senderType, clientMessageId, keyVersion: 2, text });

describe('history batches', () => {
	it('gives each item its text or its own code, in order', () => {
		const attachmentId = 'att_messagesSpec01';
		const meta = buildAttachmentMeta({
			attachmentId,
			name: 'a.txt',
			mime: 'text/plain',
			size: 1,
			encryption: encryptAttachment(new Uint8Array([65]), { attachmentId })
		});
		const results = decryptHistory(session, refs, conversationId, [
			{ encryption: envelope('user', 'first'), senderType: 'user' },
			{ encryption: envelope('company', 'second'), senderType: 'user' },
			{ encryption: { ...envelope('user', 'third'), scheme: 'sc2' }, senderType: 'user' },
			{ encryption: envelope('user', JSON.stringify(meta)), senderType: 'user', contentType: 'attachment', attachment: { attachmentId } },
			{ encryption: envelope('user', 'not json'), senderType: 'user', contentType: 'attachment', attachment: { attachmentId } },
			{ encryption: envelope('user', JSON.stringify(meta)), senderType: 'user', contentType: 'attachment' },
			null as never,
			{ encryption: envelope('user', 'a sticker'), senderType: 'user', contentType: 'sticker' }
		]);
		const { key: _key, nonce: _nonce, digest: _digest, ...publicFields } = meta;
		expect(results).toEqual([
			{ ok: true, text: 'first' },
			{ ok: false, code: 'DECRYPT_FAILED', message: 'the message does not authenticate' },
			{ ok: false, code: 'UNSUPPORTED_VERSION', message: expect.any(String) },
			{ ok: true, text: '', attachment: { ...publicFields, ref: expect.any(String) } },
			{ ok: false, code: 'INVALID_INPUT', message: 'attachment meta is not JSON' },
			{ ok: false, code: 'INVALID_INPUT', message: expect.stringMatching(/attachmentId/) },
			{ ok: false, code: 'UNSUPPORTED_VERSION', message: expect.any(String) },
			{ ok: true, text: 'a sticker' }
		]);
		// F, the nonce base and the digest stay in the worker, behind the reference.
		expect(JSON.stringify(results)).not.toContain(meta.key);
		expect(refs.open((results[3] as { attachment: { ref: string } }).attachment.ref)).toEqual(meta);
	});

	it('refuses a bad conversation id, a non-list and an oversized batch as a whole', () => {
		expect(codeOfCall(() => decryptHistory(session, refs, 'conv 1', []))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => decryptHistory(session, refs, conversationId, {} as never))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => decryptHistory(session, refs, conversationId, new Array(MAX_HISTORY_BATCH + 1).fill(null)))).toBe(
			'INVALID_INPUT'
		);
		expect(codeOfCall(() => decryptHistory(session, refs, 'conv_other', []))).toBe('CONVERSATION_KEY_NOT_OPEN');
	});
});

describe('replies', () => {
	it('are sealed as the company with the opened keyVersion, a srv_ id and a fresh nonce', () => {
		const first = encryptReply(session, conversationId, 'On it!', 2);
		const second = encryptReply(session, conversationId, 'On it!', 2);
		expect(first).toMatchObject({ v: 1, scheme: 'sc1', keyVersion: 2, clientMessageId: expect.stringMatching(/^srv_[A-Za-z0-9_-]{22}$/) });
		expect(first.nonce).not.toBe(second.nonce);
		expect(first.clientMessageId).not.toBe(second.clientMessageId);
		expect(decryptMessage(first, { conversationKey, conversationId, senderType: 'company' })).toBe('On it!');
	});

	it('refuse another keyVersion with KEY_MISMATCH and text over 65,536 bytes with INVALID_INPUT', () => {
		expect(codeOfCall(() => encryptReply(session, conversationId, 'hello', 1))).toBe('KEY_MISMATCH');
		expect(codeOfCall(() => encryptReply(session, conversationId, 'é'.repeat(32_769), 2))).toBe('INVALID_INPUT');
	});

	it('takes a full batch, a missing item as a failed one, and names what it refuses', () => {
		const full = decryptHistory(session, refs, conversationId, new Array(MAX_HISTORY_BATCH).fill(null));
		expect(full).toHaveLength(MAX_HISTORY_BATCH);
		expect(full[0]).toMatchObject({ ok: false, code: 'UNSUPPORTED_VERSION' });
		expect(() => decryptHistory(session, refs, conversationId, new Array(MAX_HISTORY_BATCH + 1).fill(null))).toThrow(
			`at most ${MAX_HISTORY_BATCH} items per call, got ${MAX_HISTORY_BATCH + 1}`
		);
		expect(() => decryptHistory(session, refs, conversationId, 'items' as never)).toThrow('items must be a list');
		expect(() => decryptHistory(session, refs, 'conv 1', [])).toThrow(/^conversationId /);
		expect(() => encryptReply(session, 'conv 1', 'hi', 2)).toThrow(/^conversationId /);
		expect(() => encryptReply(session, conversationId, 'hello', 1)).toThrow(`the open key of ${conversationId} has keyVersion 2, not 1`);
	});
});
