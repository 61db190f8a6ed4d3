import { beforeAll, describe, expect, it } from 'vitest';
import { decryptPrivateRecord } from '../crypto/private-record';
import { initCrypto } from '../crypto/sodium';
import { codeOfCall } from '$test-support/error-codes';
import { decryptRecords, encryptRecord, MAX_RECORD_BATCH } from './private-records';
import type { KeySession } from './session';
import { sessionWithOpenKey } from '$test-support/key-session';

const conversationId = 'conv_recordsSpec1';
const conversationKey = new Uint8Array(32).fill(7);
let session: KeySession;

beforeAll(async () => {
	await initCrypto();
	session = sessionWithOpenKey(conversationId, conversationKey, 3);
});

describe('private records in the worker (docs/private-records.md)', () => {
	it('encrypts under the open key with a fresh record id; a batch gives each record its text or its own code', () => {
		const note = encryptRecord(session, { kind: 'note', conversationId, authorId: 'acc_ada', text: 'VIP, be quick' });
		expect(note).toMatchObject({ v: 1, scheme: 'in1', keyVersion: 3, recordId: expect.stringMatching(/^note_/) });
		expect(decryptPrivateRecord(note, { kind: 'note', conversationId, authorId: 'acc_ada', conversationKey })).toBe('VIP, be quick');
		expect(
			decryptRecords(session, conversationId, 'note', [
				{ authorId: 'acc_ada', envelope: note },
				{ authorId: 'acc_ben', envelope: note },
				{ authorId: 'acc_ada', envelope: { ...note, scheme: 'sc1' } },
				null as never
			])
		).toEqual([
			{ ok: true, text: 'VIP, be quick' },
			{ ok: false, code: 'DECRYPT_FAILED', message: expect.any(String) },
			{ ok: false, code: 'UNSUPPORTED_VERSION', message: expect.any(String) },
			{ ok: false, code: 'UNSUPPORTED_VERSION', message: expect.any(String) }
		]);
		expect(decryptRecords(session, conversationId, 'profile', [{ authorId: 'acc_ada', envelope: note }])[0]).toMatchObject({
			code: 'DECRYPT_FAILED'
		});
	});

	it('needs the conversation’s key open, and bounds a batch', () => {
		expect(codeOfCall(() => encryptRecord(session, { kind: 'note', conversationId: 'conv_closed', authorId: 'acc_ada', text: 'x' }))).toBe(
			'CONVERSATION_KEY_NOT_OPEN'
		);
		expect(codeOfCall(() => decryptRecords(session, conversationId, 'note', Array(MAX_RECORD_BATCH + 1).fill({})))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => decryptRecords(session, conversationId, 'note', 'all' as never))).toBe('INVALID_INPUT');
		expect(() => decryptRecords(session, conversationId, 'note', 'all' as never)).toThrow('records must be a list');
		expect(() => decryptRecords(session, conversationId, 'note', Array(MAX_RECORD_BATCH + 1).fill({}))).toThrow(
			`at most ${MAX_RECORD_BATCH} records per call, got ${MAX_RECORD_BATCH + 1}`
		);
		expect(decryptRecords(session, conversationId, 'note', Array(MAX_RECORD_BATCH).fill({}))).toHaveLength(MAX_RECORD_BATCH);
		expect(() => decryptRecords(session, 'a b', 'note', [])).toThrow(/^conversationId must match/);
		expect(() => encryptRecord(session, { kind: 'note', conversationId: 'a b', authorId: 'acc_ada', text: 'x' })).toThrow(
			/^conversationId must match/
		);
		expect(() => encryptRecord(session, undefined as never)).toThrow(/^conversationId must match/);
	});
});
