/**
 * Ed25519 statements of contract 6.6: the platform's company-key statement (verify only) and the
 * company key rotation statement (build with its checks, sign with `signing.key`, verify with
 * `signing.pub`).
 */
import { fail } from '../errors';
import { b64uDecode, b64uEncode, utf8Encode } from './encoding';
import { DOMAIN, SIGNATURE_BYTES, requireBytes, requireId, requireKeyVersion } from './rules';
import { sodium } from './sodium';

/** Signs UTF8(statement) with a 64-byte libsodium secret key; returns b64u of the 64-byte signature. */
export function signStatement(statement: string, signingSecretKey: Uint8Array): string {
	requireBytes(signingSecretKey, 64, 'signing secret key');
	return b64uEncode(sodium().crypto_sign_detached(utf8Encode(statement), signingSecretKey));
}

/** `Ed25519_verify_detached(sig, statement, publicKey)`; a mismatch is `SIGNATURE_INVALID`. */
export function verifyStatement(statement: string, signature: unknown, signingPublicKey: Uint8Array): void {
	requireBytes(signingPublicKey, 32, 'signing public key');
	const signatureBytes = b64uDecode(signature, 'signature');
	if (signatureBytes.length !== SIGNATURE_BYTES)
		fail('INVALID_INPUT', `signature must be ${SIGNATURE_BYTES} bytes, got ${signatureBytes.length}`);
	// Stryker disable next-line all: equivalent: every path assigns valid before it is read
	let valid = false;
	try {
		valid = sodium().crypto_sign_verify_detached(signatureBytes, utf8Encode(statement), signingPublicKey);
		// Stryker disable next-line all: equivalent: valid is already false when libsodium throws
	} catch {
		// Stryker disable next-line all: equivalent: valid is already false when libsodium throws
		valid = false;
	}
	if (!valid) fail('SIGNATURE_INVALID', 'the signature does not verify');
}

export interface CompanyKeyStatementInput {
	companyId: string;
	keyVersion: number;
	publicKey: Uint8Array;
}

/** `"Service|v1|company-key|" + companyId + "|" + keyVersion + "|" + b64u(publicKey)`. */
export function companyKeyStatement(input: CompanyKeyStatementInput): string {
	requireId(input.companyId, 'companyId');
	requireKeyVersion(input.keyVersion);
	requireBytes(input.publicKey, 32, 'publicKey');
	return `${DOMAIN}|company-key|${input.companyId}|${input.keyVersion}|${b64uEncode(input.publicKey)}`;
}

/** The platform's signature of a company key, checked with the platform's public key. */
export function verifyCompanyKeySignature(input: CompanyKeyStatementInput, signature: unknown, platformPublicKey: Uint8Array): void {
	verifyStatement(companyKeyStatement(input), signature, platformPublicKey);
}

/** The rotation statement's fields as they cross the worker boundary and stand in the vectors: keys in b64u. */
export interface RotationText {
	companyId: string;
	fromKeyVersion: number;
	fromPublicKey: string;
	toKeyVersion: number;
	toPublicKey: string;
}

export interface RotationInput {
	companyId: string;
	fromKeyVersion: number;
	fromPublicKey: Uint8Array;
	toKeyVersion: number;
	toPublicKey: Uint8Array;
}

/** The rotation statement; `toKeyVersion` must be greater than `fromKeyVersion`. */
export function rotationStatement(input: RotationInput): string {
	requireId(input.companyId, 'companyId');
	const from = requireKeyVersion(input.fromKeyVersion, 'fromKeyVersion');
	const to = requireKeyVersion(input.toKeyVersion, 'toKeyVersion');
	if (to <= from) fail('INVALID_INPUT', 'toKeyVersion must be greater than fromKeyVersion');
	requireBytes(input.fromPublicKey, 32, 'fromPublicKey');
	requireBytes(input.toPublicKey, 32, 'toPublicKey');
	return `${DOMAIN}|company-key-rotation|${input.companyId}|${from}|${b64uEncode(input.fromPublicKey)}|${to}|${b64uEncode(input.toPublicKey)}`;
}

/** `rotationSignature = b64u(Ed25519_sign_detached(UTF8(statement), signing.key))`. */
export function signRotation(input: RotationInput, signingSecretKey: Uint8Array): string {
	return signStatement(rotationStatement(input), signingSecretKey);
}

export function verifyRotation(input: RotationInput, signature: unknown, signingPublicKey: Uint8Array): void {
	verifyStatement(rotationStatement(input), signature, signingPublicKey);
}
