import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, b64uEncode } from './encoding';
import { generateX25519KeyPair } from './keys';
import { openPendingProfile, sealPendingProfile } from './pending-profile';
import { initCrypto, sodium } from './sodium';
import { codeOfCall } from '$test-support/error-codes';

/** Our own vectors (docs/private-records.md), sealed with libsodium directly, not with this code. */
const VECTORS = JSON.parse(readFileSync(join(process.cwd(), 'vectors', 'inbox-pending-profile.json'), 'utf8')) as {
	companySecretKey: string;
	companyPublicKey: string;
	cases: { name: string; conversationId: string; authorId: string; text: string; sealed: string }[];
	rejections: { name: string; sealed: string; conversationId: string; authorId: string; code: string }[];
};

describe('profiles written with an invitation (docs/private-records.md)', () => {
	beforeAll(initCrypto);
	const company = () => ({
		publicKey: b64uDecode(VECTORS.companyPublicKey, 'key'),
		secretKey: b64uDecode(VECTORS.companySecretKey, 'key')
	});

	it.each(VECTORS.cases)('$name opens with the company key, for its conversation and author', (vector) => {
		expect(openPendingProfile(vector.sealed, vector, [generateX25519KeyPair(), company()])).toBe(vector.text);
	});

	it.each(VECTORS.rejections)('$name is refused with $code', (rejection) => {
		expect(codeOfCall(() => openPendingProfile(rejection.sealed, rejection, [company()]))).toBe(rejection.code);
	});

	it('seals what it opens, and only for the company key', () => {
		const place = { conversationId: 'conv_roundtrip', authorId: 'acc_ada' };
		const sealed = sealPendingProfile({ ...place, text: '{"name":"Ada"}', companyPublicKey: company().publicKey });
		expect(openPendingProfile(sealed, place, [company()])).toBe('{"name":"Ada"}');
		expect(codeOfCall(() => openPendingProfile(sealed, place, [generateX25519KeyPair()]))).toBe('DECRYPT_FAILED');
		expect(codeOfCall(() => sealPendingProfile({ ...place, conversationId: 'a b', text: '', companyPublicKey: company().publicKey }))).toBe(
			'INVALID_INPUT'
		);
	});
});

describe('profiles written with an invitation say what is wrong', () => {
	beforeAll(initCrypto);

	it('names a key of the wrong size, a profile that is too long, one for another place, and one no key opens', () => {
		const place = { conversationId: 'conv_1', authorId: 'acc_1' };
		expect(() => sealPendingProfile({ ...place, text: '{}', companyPublicKey: new Uint8Array(31) })).toThrow(
			'company public key must be 32 bytes, got 31'
		);
		const company = { publicKey: b64uDecode(VECTORS.companyPublicKey, 'key'), secretKey: b64uDecode(VECTORS.companySecretKey, 'key') };
		const huge = 'A'.repeat(Math.ceil(((64 * 1024 + 1) * 4) / 3));
		expect(() => openPendingProfile(huge, place, [company])).toThrow('the sealed profile is too long');
		const sealed = sealPendingProfile({ ...place, text: '{}', companyPublicKey: company.publicKey });
		expect(() => openPendingProfile(sealed, { ...place, authorId: 'acc_2' }, [company])).toThrow(
			'the sealed profile belongs to another conversation or author'
		);
		expect(() => openPendingProfile(sealed, place, [generateX25519KeyPair()])).toThrow('no company key opens the sealed profile');
		const justUnder = 'A'.repeat(87_380); // 65,535 bytes
		expect(codeOfCall(() => openPendingProfile(justUnder, place, [company]))).toBe('DECRYPT_FAILED');
	});

	it('names the id, the text or the sealed profile that breaks the rules, and takes exactly 64 KiB', () => {
		const company = { publicKey: b64uDecode(VECTORS.companyPublicKey, 'key'), secretKey: b64uDecode(VECTORS.companySecretKey, 'key') };
		const seal = (place: { conversationId: string; authorId: string }, text = '{}') =>
			sealPendingProfile({ ...place, text, companyPublicKey: company.publicKey });
		expect(() => seal({ conversationId: 'a b', authorId: 'acc_1' })).toThrow(/^conversationId must match/);
		expect(() => seal({ conversationId: 'conv_1', authorId: 'a b' })).toThrow(/^authorId must match/);
		expect(() => seal({ conversationId: 'conv_1', authorId: 'acc_1' }, '\ud800')).toThrow('profile contains a lone surrogate');

		const place = { conversationId: 'conv_1', authorId: 'acc_1' };
		expect(() => openPendingProfile('A', place, [company])).toThrow('sealed profile is not base64url: impossible length 1');
		const exactly = 'A'.repeat(87_382); // 65,536 bytes: the largest allowed
		expect(codeOfCall(() => openPendingProfile(exactly, place, [company]))).toBe('DECRYPT_FAILED');
		const notText = b64uEncode(sodium().crypto_box_seal(Uint8Array.of(0xff), company.publicKey));
		expect(() => openPendingProfile(notText, place, [company])).toThrow('profile is not valid UTF-8');
	});
});
