import { beforeAll, describe, expect, it } from 'vitest';
import { signingSecretSpellings } from '$test-support/admin-api';
import {
	b64uEncode,
	ed25519KeyPairFromSeed,
	generateEd25519KeyPair,
	generateX25519KeyPair,
	initCrypto,
	type Ed25519KeyPair
} from '../../crypto/index';
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
		// written with JSON escapes only: the parsed value holds the key, the raw text does not
		const unicodeEscaped = `{"key":"${[...b64uEncode(signing.secretKey)].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"}`;
		await expect(refuseSigningSecret(request(unicodeEscaped), signing.publicKey)).rejects.toMatchObject({ code: 'SECRET_REFUSED' });
		const fine = request('{"displayName":"Ada"}');
		await refuseSigningSecret(fine, signing.publicKey);
		expect(await fine.json()).toEqual({ displayName: 'Ada' });
	});

	it('finds a PEM block or a wrapped key in plain text, its line breaks written as escapes or CRLF', async () => {
		const [, , base64] = signingSecretSpellings(signing.secretKey);
		const pem = signingSecretSpellings(signing.secretKey).at(-1)!;
		const wrapped = base64.replace(/(.{64})/g, '$1\n');
		for (const text of [
			`note: ${wrapped.replaceAll('\n', '\\n')}`,
			`note: ${wrapped.replaceAll('\n', '\r\n')}`,
			`note: ${pem.replaceAll('\n', '\\n')}`,
			`note: ${pem.replaceAll('\n', '\r\n')}`,
			`note: ${base64.replace(/(.{4})/g, '$1 ')}`
		]) {
			await expect(refuseSigningSecret(request(text), signing.publicKey), text).rejects.toMatchObject({ code: 'SECRET_REFUSED' });
		}
		// a query written with a space for a plus, and without any percent-encoding
		const plus = 'q=' + b64uEncode(signing.secretKey.subarray(0, 32));
		expect(() => refuseSigningSecretInRequestLine(new URL(`http://inbox.test/api/x?${plus}+x`), new Headers(), signing.publicKey)).toThrow(
			expect.objectContaining({ code: 'SECRET_REFUSED' })
		);
	});

	it('says why it refused', async () => {
		await expect(refuseSigningSecret(request(JSON.stringify({ key: b64uEncode(signing.secretKey) })), signing.publicKey)).rejects.toThrow(
			'this request carries the company signing key (signing.key); it stays in your browser and is never sent to the server'
		);
		await expect(
			refuseSigningSecret(new Request('http://inbox.test/api/x', { method: 'POST' }), signing.publicKey)
		).resolves.toBeUndefined();
		await expect(refuseSigningSecret(request(''), signing.publicKey)).resolves.toBeUndefined();
	});

	it('treats only arrays of 32 or 64 integers from 0 to 255 as bytes', () => {
		const seed = Array.from(signing.secretKey.subarray(0, 32));
		// the same numbers as bytes would wrap to the seed; as numbers they are no key
		for (const [at, value] of [
			[0, seed[0] + 256],
			[31, seed[31] - 256],
			[5, seed[5] + 0.5]
		] as const) {
			const altered = seed.slice();
			altered[at] = value;
			expect(holdsSigningSecret({ key: altered }, signing.publicKey), `${at}: ${value}`).toBe(false);
		}
		expect(holdsSigningSecret({ key: [...seed, 0] }, signing.publicKey)).toBe(false);
		expect(holdsSigningSecret({ key: seed.slice(0, 31) }, signing.publicKey)).toBe(false);
		const zeroSeedKey = ed25519KeyPairFromSeed(new Uint8Array(32));
		expect(holdsSigningSecret({ key: Array(32).fill(0) }, zeroSeedKey.publicKey)).toBe(true);
		const topSeedKey = ed25519KeyPairFromSeed(new Uint8Array(32).fill(255));
		expect(holdsSigningSecret({ key: Array(32).fill(255) }, topSeedKey.publicKey)).toBe(true);
		expect(holdsSigningSecret({ nested: { deeper: [1, 'two', { key: seed }] } }, signing.publicKey)).toBe(true);
		expect(holdsSigningSecret({ first: 'harmless', second: seed }, signing.publicKey)).toBe(true);
	});

	it('derives at most as many keys as a full roster needs, and exactly that many still pass', async () => {
		const seeds = (count: number) =>
			Array.from({ length: count }, (_, i) => b64uEncode(new Uint8Array(32).fill(i % 256, 0, 1).fill(i >> 8, 1, 2)));
		await refuseSigningSecret(request(JSON.stringify({ seeds: seeds(MAX_SEEDS_CHECKED) })), signing.publicKey);
		await expect(refuseSigningSecret(request(JSON.stringify({ seeds: seeds(MAX_SEEDS_CHECKED + 1) })), signing.publicKey)).rejects.toThrow(
			`the body holds more than ${MAX_SEEDS_CHECKED} key-like values`
		);
	});

	it('lets a full roster of public keys through', async () => {
		const roster = { agents: Array.from({ length: 1000 }, () => ({ publicKey: b64uEncode(generateX25519KeyPair().publicKey) })) };
		await expect(refuseSigningSecret(request(JSON.stringify(roster)), signing.publicKey)).resolves.toBeUndefined();
	});
});
