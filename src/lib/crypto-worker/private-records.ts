/**
 * Private records in the worker (docs/private-records.md): notes and profiles encrypted under the
 * conversation's open key with a fresh record id and nonce, and a conversation's records decrypted in
 * one call, each giving its text or its own error code. The author is the signed-in account, named by
 * the page; the reader takes it from where the record is stored.
 */
import { fail } from '../errors';
import {
	decryptPrivateRecord,
	encryptPrivateRecord,
	newRecordId,
	type PrivateEnvelope,
	type PrivateRecordKind
} from '../crypto/private-record';
import { requireId } from '../crypto/rules';
import { failureOutcome } from './outcome';
import type { KeySession } from './session';
import type { Outcome } from './types';

/** A conversation carries at most this many records per call (the inbox pages notes by 200). */
export const MAX_RECORD_BATCH = 1000;

export function encryptRecord(
	session: KeySession,
	input: { kind: PrivateRecordKind; conversationId: string; authorId: string; text: string }
): PrivateEnvelope {
	const conversationId = requireId(input?.conversationId, 'conversationId');
	const entry = session.conversationKey(conversationId);
	return encryptPrivateRecord({
		kind: input.kind,
		conversationId,
		authorId: input.authorId,
		recordId: newRecordId(input.kind),
		keyVersion: entry.keyVersion,
		text: input.text,
		conversationKey: entry.key
	});
}

export function decryptRecords(
	session: KeySession,
	conversationId: string,
	kind: PrivateRecordKind,
	records: ReadonlyArray<{ authorId: string; envelope: unknown }>
): Array<Outcome<{ text: string }>> {
	requireId(conversationId, 'conversationId');
	if (!Array.isArray(records)) fail('INVALID_INPUT', 'records must be a list');
	if (records.length > MAX_RECORD_BATCH) fail('INVALID_INPUT', `at most ${MAX_RECORD_BATCH} records per call, got ${records.length}`);
	const { key } = session.conversationKey(conversationId);
	return records.map((record) => {
		try {
			return {
				ok: true,
				text: decryptPrivateRecord(record?.envelope, { kind, conversationId, authorId: record?.authorId, conversationKey: key })
			};
		} catch (error) {
			return failureOutcome(error);
		}
	});
}
