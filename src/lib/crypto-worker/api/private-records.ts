/**
 * The private records part of the crypto worker's API (docs/private-records.md): the team's notes and
 * the customer's profile, encrypted and decrypted under the conversation's open key, and a profile
 * written with an invitation, sealed to the company's public key before the conversation exists.
 */
import { b64uDecode } from '../../crypto/encoding';
import { sealPendingProfile } from '../../crypto/pending-profile';
import type { PrivateEnvelope, PrivateRecordKind } from '../../crypto/private-record';
import { decryptRecords, encryptRecord } from '../private-records';
import type { Outcome } from '../types';
import type { WorkerState } from './state';

export interface PrivateRecordsApi {
	/** Encrypts a note or the customer's profile under the conversation's open key. */
	encryptPrivateRecord(input: {
		kind: PrivateRecordKind;
		conversationId: string;
		authorId: string;
		text: string;
	}): Promise<PrivateEnvelope>;
	/** Seals a profile written with an invitation to the company's public key (b64u); no secret is involved. */
	sealPendingProfile(input: { conversationId: string; authorId: string; text: string; companyPublicKey: string }): Promise<string>;
	/** Decrypts a conversation's notes or profile versions in one round trip; each gives its text or its own error code. */
	decryptPrivateRecords(
		conversationId: string,
		kind: PrivateRecordKind,
		records: Array<{ authorId: string; envelope: unknown }>
	): Promise<Array<Outcome<{ text: string }>>>;
}

export function createPrivateRecordsApi(state: WorkerState): PrivateRecordsApi {
	return {
		encryptPrivateRecord: (input) => state.run(() => encryptRecord(state.session, input)),
		sealPendingProfile: (input) =>
			state.run(() => sealPendingProfile({ ...input, companyPublicKey: b64uDecode(input.companyPublicKey, 'companyPublicKey') })),
		decryptPrivateRecords: (conversationId, kind, records) => state.run(() => decryptRecords(state.session, conversationId, kind, records))
	};
}
