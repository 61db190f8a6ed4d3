import { beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode } from '../crypto/encoding';
import { generateEd25519KeyPair } from '../crypto/keys';
import { verifyRoster } from '../crypto/roster';
import { verifyRotation } from '../crypto/signatures';
import { initCrypto } from '../crypto/sodium';
import type { HeldKey } from './session';
import { signRosterStatement, signRotationStatement } from './signing';
import { codeOfCall } from '$test-support/error-codes';

let key: HeldKey;
let publicKey: Uint8Array;

beforeAll(async () => {
	await initCrypto();
	const pair = generateEd25519KeyPair();
	publicKey = pair.publicKey;
	key = {
		handle: 'key_x',
		info: { kind: 'signing', publicKey: b64uEncode(pair.publicKey), fingerprint: '', createdAt: '', updatedAt: '' },
		...pair
	};
});

const agentKey = (fill: number) => b64uEncode(new Uint8Array(32).fill(fill));

describe('signing with the admin key', () => {
	it('signs the roster statement with agents in id order; the signature verifies in any order', () => {
		const roster = {
			companyId: 'cmp_signingSpec',
			rosterVersion: 4,
			issuedAt: '2026-11-22T12:00:00Z',
			agents: [
				{ agentKeyId: 'agk_bbbbbbbbbbbbbbbb', publicKey: agentKey(2) },
				{ agentKeyId: 'agk_aaaaaaaaaaaaaaaa', publicKey: agentKey(1) }
			]
		};
		const signed = signRosterStatement(key, roster);
		expect(signed.statement).toBe(
			`Service|v1|agent-roster|cmp_signingSpec|4|2026-11-22T12:00:00Z|agk_aaaaaaaaaaaaaaaa:${agentKey(1)},agk_bbbbbbbbbbbbbbbb:${agentKey(2)}`
		);
		expect(signed.signingPublicKey).toBe(b64uEncode(publicKey));
		expect(() => verifyRoster({ ...roster, signature: signed.signature }, publicKey)).not.toThrow();
	});

	it('signs the rotation statement', () => {
		const rotation = {
			companyId: 'cmp_signingSpec',
			fromKeyVersion: 1,
			fromPublicKey: agentKey(5),
			toKeyVersion: 2,
			toPublicKey: agentKey(6)
		};
		const signed = signRotationStatement(key, rotation);
		expect(signed.statement).toBe(`Service|v1|company-key-rotation|cmp_signingSpec|1|${agentKey(5)}|2|${agentKey(6)}`);
		const bytes = { ...rotation, fromPublicKey: new Uint8Array(32).fill(5), toPublicKey: new Uint8Array(32).fill(6) };
		expect(() => verifyRotation(bytes, signed.signature, publicKey)).not.toThrow();
	});

	it('refuses invalid statements with INVALID_INPUT before signing', () => {
		expect(
			codeOfCall(() =>
				signRotationStatement(key, {
					companyId: 'cmp_x',
					fromKeyVersion: 2,
					fromPublicKey: agentKey(5),
					toKeyVersion: 2,
					toPublicKey: agentKey(6)
				})
			)
		).toBe('INVALID_INPUT');
		expect(
			codeOfCall(() =>
				signRotationStatement(key, {
					companyId: 'cmp_x',
					fromKeyVersion: 1,
					fromPublicKey: 'short',
					toKeyVersion: 2,
					toPublicKey: agentKey(6)
				})
			)
		).toBe('INVALID_INPUT');
		expect(
			codeOfCall(() => signRosterStatement(key, { companyId: 'cmp_x', rosterVersion: 0, issuedAt: '2026-11-22T12:00:00Z', agents: [] }))
		).toBe('INVALID_INPUT');
	});

	it('refuses a missing or malformed rotation as input, naming the key', () => {
		expect(codeOfCall(() => signRotationStatement(key, null as never))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => signRotationStatement(key, undefined as never))).toBe('INVALID_INPUT');
		const rotation = { companyId: 'cmp_x', fromKeyVersion: 1, fromPublicKey: agentKey(1), toKeyVersion: 2, toPublicKey: agentKey(2) };
		expect(() => signRotationStatement(key, { ...rotation, fromPublicKey: 'AAAA' })).toThrow('fromPublicKey must be 32 bytes, got 3');
		expect(() => signRotationStatement(key, { ...rotation, toPublicKey: 'AAAA' })).toThrow('toPublicKey must be 32 bytes, got 3');
	});
});
