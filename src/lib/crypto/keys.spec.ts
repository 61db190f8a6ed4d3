import { beforeAll, describe, expect, it } from 'vitest';
import {
	checkEd25519SecretKey,
	checkX25519KeyPair,
	ed25519KeyPairFromSeed,
	fingerprint,
	fingerprintDisplay,
	generateEd25519KeyPair,
	generateX25519KeyPair,
	x25519KeyPairFromSeed,
	x25519PublicKey
} from './keys';
import { buildInviteLink, parseInviteLinkFragment } from './invite';
import { b64uEncode } from './encoding';
import { initCrypto } from './sodium';
import { codeOfCall } from '$test-support/error-codes';

beforeAll(() => initCrypto());

describe('keys and fingerprints (contract 2.1, 2.2)', () => {
	it('shows the fingerprint as 16 groups of 4 lowercase hex characters', () => {
		expect(fingerprintDisplay(generateX25519KeyPair().publicKey)).toMatch(/^[0-9a-f]{4}( [0-9a-f]{4}){15}$/);
	});

	it('checks that an X25519 public key belongs to its secret key', () => {
		const pair = generateX25519KeyPair();
		expect(checkX25519KeyPair(pair)).toBe(pair);
		expect(codeOfCall(() => checkX25519KeyPair({ ...pair, publicKey: generateX25519KeyPair().publicKey }))).toBe('INVALID_INPUT');
	});

	it('checks an Ed25519 libsodium secret key against its seed and an expected public key', () => {
		const pair = generateEd25519KeyPair();
		expect(checkEd25519SecretKey(pair.secretKey, pair.publicKey).publicKey).toEqual(pair.publicKey);
		expect(codeOfCall(() => checkEd25519SecretKey(pair.secretKey, generateEd25519KeyPair().publicKey))).toBe('INVALID_INPUT');
		const spliced = pair.secretKey.slice();
		spliced.set(generateEd25519KeyPair().publicKey, 32);
		expect(codeOfCall(() => checkEd25519SecretKey(spliced))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => checkEd25519SecretKey(pair.secretKey.subarray(0, 32)))).toBe('INVALID_INPUT');
	});
});

describe('the sentences of key errors', () => {
	it('name the key and what is wrong with it', () => {
		const pair = generateX25519KeyPair();
		const other = generateX25519KeyPair().publicKey;
		expect(() => checkX25519KeyPair({ ...pair, publicKey: other })).toThrow('X25519 key pair: the public key is not X25519(secret key, 9)');
		expect(() => checkX25519KeyPair({ ...pair, publicKey: other }, 'keys/public.key')).toThrow(
			'keys/public.key: the public key is not X25519(secret key, 9)'
		);
		expect(() => checkX25519KeyPair({ ...pair, publicKey: new Uint8Array(31) }, 'keys/public.key')).toThrow(
			'keys/public.key public key must be 32 bytes, got 31'
		);
		expect(() => x25519PublicKey(new Uint8Array(31))).toThrow('X25519 secret key must be 32 bytes, got 31');
		expect(() => x25519KeyPairFromSeed(new Uint8Array(31))).toThrow('seed must be 32 bytes, got 31');
		expect(() => ed25519KeyPairFromSeed(new Uint8Array(31))).toThrow('seed must be 32 bytes, got 31');
		expect(() => fingerprint(new Uint8Array(31))).toThrow('public key must be 32 bytes, got 31');
		const signing = generateEd25519KeyPair();
		expect(() => checkEd25519SecretKey(signing.secretKey.subarray(0, 32))).toThrow('Ed25519 secret key must be 64 bytes, got 32');
		const spliced = signing.secretKey.slice();
		spliced.set(generateEd25519KeyPair().publicKey, 32);
		expect(() => checkEd25519SecretKey(spliced)).toThrow('Ed25519 secret key: its public half does not match its seed');
		expect(() => checkEd25519SecretKey(signing.secretKey, generateEd25519KeyPair().publicKey)).toThrow(
			'Ed25519 secret key does not belong to the expected public key'
		);
		expect(x25519KeyPairFromSeed(new Uint8Array(32)).publicKey).toEqual(x25519KeyPairFromSeed(new Uint8Array(32)).publicKey);
	});
});

describe('invitation links (contract 6.3)', () => {
	it('appends #s=…&fp=… and reads it back', () => {
		const company = generateX25519KeyPair();
		const secret = new Uint8Array(32).fill(7);
		const link = buildInviteLink('https://service.example/i/ABCD', secret, company.publicKey);
		expect(link).toMatch(/^https:\/\/service\.example\/i\/ABCD#s=[A-Za-z0-9_-]{43}&fp=[A-Za-z0-9_-]{43}$/);
		const parsed = parseInviteLinkFragment(link);
		expect(parsed.inviteSecret).toEqual(secret);
		expect(parsed.inviteUrl).toBe('https://service.example/i/ABCD');
		expect(b64uEncode(parsed.fingerprint)).toBe(link.split('fp=')[1]);
	});

	it('refuses an inviteUrl that already has a fragment', () => {
		expect(codeOfCall(() => buildInviteLink('https://x/i#y', new Uint8Array(32), generateX25519KeyPair().publicKey))).toBe('INVALID_INPUT');
	});
});
