import { beforeAll, describe, expect, it } from 'vitest';
import { b64uDecode, b64uEncode } from './encoding';
import { generateEd25519KeyPair, generateX25519KeyPair, type Ed25519KeyPair } from './keys';
import {
	companyKeyStatement,
	rotationStatement,
	signRotation,
	signStatement,
	verifyCompanyKeySignature,
	verifyRotation,
	verifyStatement
} from './signatures';
import { initCrypto } from './sodium';
import { codeOfCall } from '$test-support/error-codes';

let signing: Ed25519KeyPair;
let other: Ed25519KeyPair;
const from = new Uint8Array(32).fill(1);
const to = new Uint8Array(32).fill(2);
const rotation = () => ({ companyId: 'cmp_test', fromKeyVersion: 1, fromPublicKey: from, toKeyVersion: 2, toPublicKey: to });

beforeAll(async () => {
	await initCrypto();
	signing = generateEd25519KeyPair();
	other = generateEd25519KeyPair();
});

describe('Ed25519 statements (contract 6.6)', () => {
	it('verifies a statement only with its own key, text and signature', () => {
		const signature = signStatement('Service|v1|x', signing.secretKey);
		expect(() => verifyStatement('Service|v1|x', signature, signing.publicKey)).not.toThrow();
		expect(codeOfCall(() => verifyStatement('Service|v1|y', signature, signing.publicKey))).toBe('SIGNATURE_INVALID');
		expect(codeOfCall(() => verifyStatement('Service|v1|x', signature, other.publicKey))).toBe('SIGNATURE_INVALID');
		const flipped = b64uDecode(signature);
		flipped[63] ^= 1;
		expect(() => verifyStatement('Service|v1|x', b64uEncode(flipped), signing.publicKey)).toThrow('the signature does not verify');
		// a public key libsodium refuses outright is a failed verification too, never a crash
		expect(codeOfCall(() => verifyStatement('Service|v1|x', signature, new Uint8Array(32).fill(0xff)))).toBe('SIGNATURE_INVALID');
	});

	it('names the malformed part', () => {
		expect(() => signStatement('x', signing.publicKey)).toThrow(/^signing secret key /);
		expect(() => verifyStatement('x', b64uEncode(new Uint8Array(64)), signing.secretKey)).toThrow(/^signing public key /);
		expect(() => verifyStatement('x', 'not base64!', signing.publicKey)).toThrow(/^signature is not base64url/);
		expect(() => verifyStatement('x', b64uEncode(new Uint8Array(63)), signing.publicKey)).toThrow('signature must be 64 bytes, got 63');
	});

	it('spells the platform’s company-key statement and checks it with the platform’s key', () => {
		const input = { companyId: 'cmp_test', keyVersion: 3, publicKey: to };
		expect(companyKeyStatement(input)).toBe(`Service|v1|company-key|cmp_test|3|${b64uEncode(to)}`);
		const platform = generateEd25519KeyPair();
		const signature = signStatement(companyKeyStatement(input), platform.secretKey);
		expect(() => verifyCompanyKeySignature(input, signature, platform.publicKey)).not.toThrow();
		expect(codeOfCall(() => verifyCompanyKeySignature({ ...input, keyVersion: 4 }, signature, platform.publicKey))).toBe(
			'SIGNATURE_INVALID'
		);
		expect(codeOfCall(() => verifyCompanyKeySignature(input, signature, signing.publicKey))).toBe('SIGNATURE_INVALID');
		expect(() => companyKeyStatement({ ...input, companyId: 'no spaces' })).toThrow(/^companyId /);
		expect(() => companyKeyStatement({ ...input, publicKey: new Uint8Array(31) })).toThrow(/^publicKey /);
		expect(codeOfCall(() => companyKeyStatement({ ...input, keyVersion: 0 }))).toBe('INVALID_INPUT');
	});

	it('spells the rotation statement, and a rotation verifies only as signed', () => {
		expect(rotationStatement(rotation())).toBe(`Service|v1|company-key-rotation|cmp_test|1|${b64uEncode(from)}|2|${b64uEncode(to)}`);
		const signature = signRotation(rotation(), signing.secretKey);
		expect(() => verifyRotation(rotation(), signature, signing.publicKey)).not.toThrow();
		for (const changed of [{ toPublicKey: from }, { toKeyVersion: 3 }, { fromPublicKey: to }, { companyId: 'cmp_other' }]) {
			expect(
				codeOfCall(() => verifyRotation({ ...rotation(), ...changed }, signature, signing.publicKey)),
				JSON.stringify(changed)
			).toBe('SIGNATURE_INVALID');
		}
		expect(codeOfCall(() => verifyRotation(rotation(), signature, other.publicKey))).toBe('SIGNATURE_INVALID');
	});

	it('refuses a rotation that does not move forward, naming each malformed field', () => {
		expect(() => rotationStatement({ ...rotation(), toKeyVersion: 1 })).toThrow('toKeyVersion must be greater than fromKeyVersion');
		expect(() => rotationStatement({ ...rotation(), fromKeyVersion: 3 })).toThrow('toKeyVersion must be greater than fromKeyVersion');
		expect(() => rotationStatement({ ...rotation(), companyId: '' })).toThrow(/^companyId /);
		expect(() => rotationStatement({ ...rotation(), fromKeyVersion: 1.5 })).toThrow(/^fromKeyVersion /);
		expect(() => rotationStatement({ ...rotation(), toKeyVersion: -2 })).toThrow(/^toKeyVersion /);
		expect(() => rotationStatement({ ...rotation(), fromPublicKey: generateX25519KeyPair().secretKey.subarray(1) })).toThrow(
			/^fromPublicKey /
		);
		expect(() => rotationStatement({ ...rotation(), toPublicKey: new Uint8Array(33) })).toThrow(/^toPublicKey /);
	});
});
