import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ContractError } from '../errors';
import { b64uDecode, b64uEncode } from './encoding';
import { decryptMessage } from './message';
import {
	decryptPrivateRecord,
	encryptPrivateRecord,
	newRecordId,
	privateEnvelopeShapeProblem,
	privateRecordAd,
	type PrivateRecordKind
} from './private-record';
import { initCrypto, sodium } from './sodium';

/** Our own vectors for our own format (docs/private-records.md), made with @noble/ciphers, not with this code. */
const VECTORS = JSON.parse(readFileSync(join(process.cwd(), 'vectors', 'inbox-private-records.json'), 'utf8')) as {
	cases: {
		name: string;
		kind: PrivateRecordKind;
		conversationId: string;
		recordId: string;
		authorId: string;
		keyVersion: number;
		text: string;
		ad: string;
		key: string;
		nonce: string;
		ciphertext: string;
	}[];
	rejections: {
		name: string;
		key: string;
		place: { kind: PrivateRecordKind; conversationId: string; authorId: string };
		envelope: unknown;
		code: string;
	}[];
	messageAcceptance: { key: string; conversationId: string; envelope: unknown; code: string };
};

/** The envelope a vector case expects. */
const envelopeOf = (vector: (typeof VECTORS.cases)[number]) => ({
	v: 1,
	scheme: 'in1',
	keyVersion: vector.keyVersion,
	recordId: vector.recordId,
	nonce: vector.nonce,
	ciphertext: vector.ciphertext
});

const codeOf = (work: () => unknown) => {
	try {
		work();
	} catch (error) {
		if (error instanceof ContractError) return error.code;
		throw error;
	}
	return 'accepted';
};

describe('private records in1 (docs/private-records.md)', () => {
	beforeAll(initCrypto);

	it.each(VECTORS.cases)('$name: the AD, the envelope and the text round trip', (vector) => {
		const place = { kind: vector.kind, conversationId: vector.conversationId, authorId: vector.authorId };
		expect(privateRecordAd({ ...place, recordId: vector.recordId, keyVersion: vector.keyVersion })).toBe(vector.ad);
		const conversationKey = b64uDecode(vector.key, 'key');
		const envelope = encryptPrivateRecord({
			...place,
			recordId: vector.recordId,
			keyVersion: vector.keyVersion,
			text: vector.text,
			conversationKey,
			nonce: b64uDecode(vector.nonce, 'nonce')
		});
		expect(envelope).toEqual(envelopeOf(vector));
		expect(decryptPrivateRecord(envelope, { ...place, conversationKey })).toBe(vector.text);
		expect(privateEnvelopeShapeProblem(envelope)).toBeNull();
	});

	it.each(VECTORS.rejections)('$name is refused with $code', (rejection) => {
		expect(
			codeOf(() => decryptPrivateRecord(rejection.envelope, { ...rejection.place, conversationKey: b64uDecode(rejection.key, 'key') }))
		).toBe(rejection.code);
	});

	it('cannot be passed off as a company message, nor a message as a record', () => {
		const { key, conversationId, envelope, code } = VECTORS.messageAcceptance;
		expect(codeOf(() => decryptMessage(envelope, { conversationKey: b64uDecode(key, 'key'), conversationId, senderType: 'company' }))).toBe(
			code
		);
	});

	it('draws fresh record ids and nonces, and the server sees only shapes', () => {
		expect(newRecordId('note')).toMatch(/^note_[A-Za-z0-9_-]{22}$/);
		expect(newRecordId('note')).not.toBe(newRecordId('note'));
		const vector = VECTORS.cases[0];
		const { nonce: _fixedNonce, ...withoutNonce } = vector;
		const input = { ...withoutNonce, conversationKey: b64uDecode(vector.key, 'key') };
		const [first, second] = [encryptPrivateRecord(input), encryptPrivateRecord(input)];
		expect(first.nonce).not.toBe(second.nonce);
		const envelope = { v: 1, scheme: 'in1', keyVersion: 1, recordId: vector.recordId, nonce: vector.nonce, ciphertext: vector.ciphertext };
		for (const [bad, problem] of [
			[null, /object/],
			[{ ...envelope, extra: 1 }, /exactly/],
			[{ ...envelope, scheme: 'sc1' }, /scheme in1/],
			[{ ...envelope, keyVersion: 0 }, /keyVersion/],
			[{ ...envelope, recordId: 'a b' }, /recordId/],
			[{ ...envelope, nonce: 'AAAA' }, /nonce/],
			[{ ...envelope, ciphertext: vector.ciphertext.slice(0, 40) }, /ciphertext length/]
		] as const) {
			expect(privateEnvelopeShapeProblem(bad)).toMatch(problem);
		}
		expect(codeOf(() => encryptPrivateRecord({ ...input, text: 'x'.repeat(65_537) }))).toBe('INVALID_INPUT');
		expect(codeOf(() => encryptPrivateRecord({ ...input, kind: 'message' as PrivateRecordKind }))).toBe('INVALID_INPUT');
	});
});

describe('private records say what is wrong (docs/private-records.md)', () => {
	beforeAll(initCrypto);
	const vector = VECTORS.cases[0];
	const conversationKey = () => b64uDecode(vector.key, 'key');
	const input = () => ({ ...vector, nonce: undefined, conversationKey: conversationKey() });

	it('names the part of the AD that breaks the rules, the text that is too long, and why a record cannot be read', () => {
		const ad = { kind: 'note' as const, conversationId: 'conv_1', recordId: 'note_1', authorId: 'acc_1', keyVersion: 1 };
		expect(() => privateRecordAd({ ...ad, kind: 'memo' as PrivateRecordKind })).toThrow('kind must be one of note, profile');
		expect(() => privateRecordAd({ ...ad, conversationId: '' })).toThrow(/^conversationId must match/);
		expect(() => privateRecordAd({ ...ad, recordId: '' })).toThrow(/^recordId must match/);
		expect(() => privateRecordAd({ ...ad, authorId: '' })).toThrow(/^authorId must match/);
		expect(() => encryptPrivateRecord({ ...input(), text: 'x'.repeat(65_537) })).toThrow(
			'record text must be at most 65536 UTF-8 bytes, got 65537'
		);
		const place = {
			kind: vector.kind,
			conversationId: vector.conversationId,
			authorId: vector.authorId,
			conversationKey: conversationKey()
		};
		const envelope = envelopeOf(vector);
		expect(() => decryptPrivateRecord({ ...envelope, v: 2 }, place)).toThrow('a private record must be v 1, scheme in1');
		expect(() => decryptPrivateRecord(envelope, { ...place, authorId: 'acc_other' })).toThrow('the record does not authenticate');
	});

	it('the server is told exactly what is wrong with a shape, up to the longest record', () => {
		const vector = VECTORS.cases[0];
		const envelope = envelopeOf(vector);
		const ciphertextOf = (length: number) => b64uEncode(new Uint8Array(length));
		expect(privateEnvelopeShapeProblem([])).toBe('envelope must be an object');
		expect(privateEnvelopeShapeProblem({ ...envelope, v: 2 })).toBe('envelope must be v 1, scheme in1');
		expect(privateEnvelopeShapeProblem({ ...envelope, nonce: 5 })).toBe('nonce must be a base64url string');
		expect(privateEnvelopeShapeProblem({ ...envelope, ciphertext: 'A' })).toBe('ciphertext is not base64url: impossible length 1');
		const wrongLength = 'ciphertext length must be 16 more than a multiple of 256, at most 65,808 bytes';
		for (const [length, problem] of [
			[16, wrongLength], // no padding block at all
			[273, wrongLength], // not a whole number of blocks
			[272, null],
			[65_808, null], // the longest text, 65,536 bytes, and its padding block
			[66_064, wrongLength]
		] as const) {
			expect(privateEnvelopeShapeProblem({ ...envelope, ciphertext: ciphertextOf(length) }), `${length} bytes`).toBe(problem);
		}
	});

	it('a record that authenticates but holds no UTF-8 text says so', () => {
		const vector = VECTORS.cases[0];
		const place = { kind: vector.kind, conversationId: vector.conversationId, authorId: vector.authorId };
		const conversationKey = b64uDecode(vector.key, 'key');
		const padded = new Uint8Array(256);
		padded.set([0xff, 0xfe, 0x80]);
		const nonce = new Uint8Array(24);
		const ad = privateRecordAd({ ...place, recordId: vector.recordId, keyVersion: vector.keyVersion });
		const ciphertext = sodium().crypto_aead_xchacha20poly1305_ietf_encrypt(padded, ad, null, nonce, conversationKey);
		const envelope = { ...envelopeOf(vector), nonce: b64uEncode(nonce), ciphertext: b64uEncode(ciphertext) };
		expect(() => decryptPrivateRecord(envelope, { ...place, conversationKey })).toThrow('record text is not valid UTF-8');
	});
});
