/**
 * The inbox's private records `in1` (docs/private-records.md; not a contract format): what agents write
 * for each other — notes and the customer's profile — encrypted under the conversation key K with
 * XChaCha20-Poly1305 IETF and padded to 256-byte blocks like messages (contract 6.5). Their AD has a
 * domain of its own and names the record's kind, conversation, id, author and key version: a record
 * cannot be replayed into another conversation, as another record or another kind, under another
 * author, nor passed off as a message (whose AD starts with `Service|v1|msg|`), and a message cannot be
 * passed off as one of them.
 */
import { fail } from '../errors';
import { b64uDecode, b64uEncode, utf8Decode } from './encoding';
import { encryptPaddedText, MAX_MESSAGE_TEXT_BYTES, PADDING_BLOCK, paddedEnvelopeParts, unpad, type PaddedTextInput } from './message';
import { ID_RULE, isId, isIntegerIn, MAX_KEY_VERSION, NONCE_BYTES, requireId, requireKeyVersion, TAG_BYTES } from './rules';
import { sodium } from './sodium';

export const PRIVATE_DOMAIN = 'Inbox|v1';
export const PRIVATE_RECORD_KINDS = ['note', 'profile'] as const;
export type PrivateRecordKind = (typeof PRIVATE_RECORD_KINDS)[number];

/** The longest text of a record: as long as a message's. */
export const MAX_PRIVATE_TEXT_BYTES = MAX_MESSAGE_TEXT_BYTES;
const MIN_CIPHERTEXT_BYTES = PADDING_BLOCK + TAG_BYTES;
const MAX_CIPHERTEXT_BYTES = MAX_PRIVATE_TEXT_BYTES + PADDING_BLOCK + TAG_BYTES;

export interface PrivateEnvelope {
	v: 1;
	scheme: 'in1';
	keyVersion: number;
	recordId: string;
	nonce: string;
	ciphertext: string;
}

/** What the reader knows of a record from where it is stored, never from the envelope: its kind, conversation and author. */
export interface PrivateRecordPlace {
	kind: PrivateRecordKind;
	conversationId: string;
	/** The account that wrote it (an id of the contract's form). */
	authorId: string;
}

function requireKind(value: unknown): PrivateRecordKind {
	if (!PRIVATE_RECORD_KINDS.includes(value as PrivateRecordKind))
		fail('INVALID_INPUT', `kind must be one of ${PRIVATE_RECORD_KINDS.join(', ')}`);
	return value as PrivateRecordKind;
}

/** `"Inbox|v1|" + kind + "|" + conversationId + "|" + recordId + "|" + authorId + "|" + keyVersion`. */
export function privateRecordAd(place: PrivateRecordPlace & { recordId: string; keyVersion: number }): string {
	const kind = requireKind(place.kind);
	const conversationId = requireId(place.conversationId, 'conversationId');
	const recordId = requireId(place.recordId, 'recordId');
	const authorId = requireId(place.authorId, 'authorId');
	const keyVersion = requireKeyVersion(place.keyVersion);
	return `${PRIVATE_DOMAIN}|${kind}|${conversationId}|${recordId}|${authorId}|${keyVersion}`;
}

/** `note_` or `profile_` + b64u of 16 random bytes. */
export function newRecordId(kind: PrivateRecordKind): string {
	return `${requireKind(kind)}_${b64uEncode(sodium().randombytes_buf(16))}`;
}

export interface EncryptPrivateRecordInput extends PrivateRecordPlace, PaddedTextInput {
	recordId: string;
	keyVersion: number;
}

export function encryptPrivateRecord(input: EncryptPrivateRecordInput): PrivateEnvelope {
	const sealed = encryptPaddedText(input, privateRecordAd(input), 'record text');
	return { v: 1, scheme: 'in1', keyVersion: input.keyVersion, recordId: input.recordId, ...sealed };
}

/**
 * Decrypts with the checks in the order of a message's (contract 6.2): version, AD, nonce, ciphertext
 * length, authentication, padding, UTF-8.
 */
export function decryptPrivateRecord(envelope: unknown, place: PrivateRecordPlace & { conversationKey: Uint8Array }): string {
	const candidate = (envelope ?? {}) as Record<string, unknown>;
	if (candidate.v !== 1 || candidate.scheme !== 'in1') fail('UNSUPPORTED_VERSION', 'a private record must be v 1, scheme in1');
	const ad = privateRecordAd({ ...place, recordId: candidate.recordId as string, keyVersion: candidate.keyVersion as number });
	const { nonce, ciphertext } = paddedEnvelopeParts(candidate, place.conversationKey, MAX_CIPHERTEXT_BYTES);
	let padded: Uint8Array;
	try {
		padded = sodium().crypto_aead_xchacha20poly1305_ietf_decrypt(null, ciphertext, ad, nonce, place.conversationKey);
	} catch {
		fail('DECRYPT_FAILED', 'the record does not authenticate');
	}
	try {
		return utf8Decode(unpad(padded), 'record text');
		// Stryker disable next-line all: equivalent: wipes the padded plaintext, which nothing reads afterwards
	} finally {
		padded.fill(0);
	}
}

/** The checks the server makes without the key before storing a record, or null when it is well-formed. */
export function privateEnvelopeShapeProblem(envelope: unknown): string | null {
	if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return 'envelope must be an object';
	const candidate = envelope as Record<string, unknown>;
	const keys = Object.keys(candidate).sort().join(',');
	if (keys !== 'ciphertext,keyVersion,nonce,recordId,scheme,v')
		return 'envelope must have exactly v, scheme, keyVersion, recordId, nonce, ciphertext';
	if (candidate.v !== 1 || candidate.scheme !== 'in1') return 'envelope must be v 1, scheme in1';
	if (!isIntegerIn(candidate.keyVersion, 1, MAX_KEY_VERSION)) return 'keyVersion must be an integer from 1 to 2^31-1';
	if (!isId(candidate.recordId)) return `recordId must match ${ID_RULE.source}`;
	try {
		if (b64uDecode(candidate.nonce, 'nonce').length !== NONCE_BYTES) return `nonce must be ${NONCE_BYTES} bytes`;
		const length = b64uDecode(candidate.ciphertext, 'ciphertext').length;
		if (length < MIN_CIPHERTEXT_BYTES || (length - TAG_BYTES) % PADDING_BLOCK !== 0 || length > MAX_CIPHERTEXT_BYTES) {
			return 'ciphertext length must be 16 more than a multiple of 256, at most 65,808 bytes';
		}
	} catch (error) {
		return (error as Error).message;
	}
	return null;
}
