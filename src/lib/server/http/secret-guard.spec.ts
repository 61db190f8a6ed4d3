import { beforeAll, describe, expect, it } from 'vitest';
import { signingSecretSpellings } from '$test-support/admin-api';
import { b64uEncode, generateEd25519KeyPair, generateX25519KeyPair, initCrypto, type Ed25519KeyPair } from '../../crypto/index';
import { holdsSigningSecret, MAX_SEEDS_CHECKED, refuseSigningSecret, refuseSigningSecretInRequestLine } from './secret-guard';

let signing: Ed25519KeyPair;

beforeAll(async () => {
	await initCrypto();
	signing = generateEd25519KeyPair();
});

const request = (body: string) =>
	new Request('http://inbox.test/api/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('the signing secret never passes (contract 2.1; docs/inbox-api.md §12)', () => {
	it('finds signing.key and its seed in every spelling, anywhere in a JSON value', () => {
		for (const spelling of signingSecretSpellings(signing.secretKey)) {
			for (const value of [spelling, { a: [1, { b: spelling }] }, { [spelling]: 1 }]) {
				expect(holdsSigningSecret(value, signing.publicKey), JSON.stringify(value)).toBe(true);
			}
		}
	});

	it('finds it as JSON byte arrays, in a form body, in the query string and in a header', async () => {
		expect(holdsSigningSecret({ key: Array.from(signing.secretKey) }, signing.publicKey)).toBe(true);
		expect(holdsSigningSecret([Array.from(signing.secretKey.subarray(0, 32))], signing.publicKey)).toBe(true);
		expect(holdsSigningSecret({ key: Array.from(signing.publicKey) }, signing.publicKey)).toBe(false);
		const base64 = Buffer.from(signing.secretKey).toString('base64');
		const form = new Request('http://inbox.test/api/session', {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: new URLSearchParams({ username: 'a', password: base64 }).toString()
		});
		await expect(refuseSigningSecret(form, signing.publicKey)).rejects.toMatchObject({ code: 'SECRET_REFUSED' });
		const inQuery = new URL(`http://inbox.test/api/conversations?note=${encodeURIComponent(base64)}`);
		expect(() => refuseSigningSecretInRequestLine(inQuery, new Headers(), signing.publicKey)).toThrow(
			expect.objectContaining({ code: 'SECRET_REFUSED' })
		);
		const inHeader = new Headers({ 'x-note': b64uEncode(signing.secretKey.subarray(0, 32)) });
		expect(() => refuseSigningSecretInRequestLine(new URL('http://inbox.test/api/x'), inHeader, signing.publicKey)).toThrow(
			expect.objectContaining({ code: 'SECRET_REFUSED' })
		);
		expect(() =>
			refuseSigningSecretInRequestLine(new URL('http://inbox.test/api/x?q=hello'), new Headers({ 'x-a': 'b' }), signing.publicKey)
		).not.toThrow();
	});

	it('lets public keys, signatures, other secrets and ordinary text through', () => {
		const other = generateEd25519KeyPair();
		const harmless = [
			b64uEncode(signing.publicKey),
			Buffer.from(signing.publicKey).toString('hex'),
			b64uEncode(other.secretKey),
			b64uEncode(other.secretKey.subarray(0, 32)),
			b64uEncode(generateX25519KeyPair().secretKey),
			b64uEncode(new Uint8Array(64)),
			'x'.repeat(5000),
			'hello, world'
		];
		for (const value of harmless) expect(holdsSigningSecret({ value }, signing.publicKey), value).toBe(false);
	});

	it('refuses a request body with 400 SECRET_REFUSED and leaves the body readable for the route', async () => {
		const escaped = JSON.stringify({ key: Buffer.from(signing.secretKey).toString('base64') }).replaceAll('/', '\\/');
		await expect(refuseSigningSecret(request(escaped), signing.publicKey)).rejects.toMatchObject({ code: 'SECRET_REFUSED', status: 400 });
		await expect(refuseSigningSecret(request(`not json ${b64uEncode(signing.secretKey)}`), signing.publicKey)).rejects.toMatchObject({
			code: 'SECRET_REFUSED'
		});
		const fine = request('{"displayName":"Ada"}');
		await refuseSigningSecret(fine, signing.publicKey);
		expect(await fine.json()).toEqual({ displayName: 'Ada' });
	});

	it('refuses a body that would make it derive more keys than a full roster needs', async () => {
		const seeds = Array.from({ length: MAX_SEEDS_CHECKED + 1 }, (_, i) =>
			b64uEncode(new Uint8Array(32).fill(i % 256, 0, 1).fill(i >> 8, 1, 2))
		);
		await expect(refuseSigningSecret(request(JSON.stringify({ seeds })), signing.publicKey)).rejects.toMatchObject({
			code: 'INVALID_REQUEST'
		});
		const roster = { agents: Array.from({ length: 1000 }, () => ({ publicKey: b64uEncode(generateX25519KeyPair().publicKey) })) };
		await refuseSigningSecret(request(JSON.stringify(roster)), signing.publicKey);
	});
});
