import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import {
	b64uDecode,
	b64uEncode,
	buildInviteLink,
	generateEd25519KeyPair,
	generateInviteSecret,
	generateX25519KeyPair,
	openConversationKey,
	signRotation,
	verifyCompanyKeySignature
} from '../../lib/crypto/index';
import { expectError, openCompanyKey, startConversation, startTestSimulator, useSimulator, type TestCompany } from '../testing/fixture';
import { isLoopbackAddress } from './handler';

const env = useSimulator();

afterEach(() => env.resetClock());

const keys = () => ({
	publicKey: b64uEncode(generateX25519KeyPair().publicKey),
	signingPublicKey: b64uEncode(generateEd25519KeyPair().publicKey),
	webhookUrl: env.receiver.url
});

describe('registering a company', () => {
	it('returns the credentials once and a platform signature of the key that verifies', async () => {
		const input = keys();
		const created = await env.simulator.control('POST', '/_sim/companies', input);
		expect(created.status).toBe(201);
		expect(created.body).toEqual({
			companyId: expect.stringMatching(/^cmp_[A-Za-z0-9_-]{12}$/),
			apiKey: expect.stringMatching(/^sk_live_[A-Za-z0-9_-]{43}$/),
			webhookSecret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
			platformPublicKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
			keyVersion: 1,
			platformSignature: expect.any(String),
			fingerprint: expect.stringMatching(/^([0-9a-f]{4} ){15}[0-9a-f]{4}$/)
		});
		const { companyId, platformSignature, platformPublicKey } = created.body;
		verifyCompanyKeySignature(
			{ companyId, keyVersion: 1, publicKey: b64uDecode(input.publicKey) },
			platformSignature,
			b64uDecode(platformPublicKey)
		);

		const view = await env.simulator.control('GET', `/_sim/companies/${companyId}`);
		expect(view.body).toMatchObject({
			companyId,
			publicKey: input.publicKey,
			keyVersion: 1,
			signingPublicKey: input.signingPublicKey,
			previousKeys: []
		});
		expect(JSON.stringify(view.body)).not.toContain(created.body.apiKey);
		expect(JSON.stringify(view.body)).not.toContain(created.body.webhookSecret);
	});

	it('refuses malformed keys, URLs, versions and credentials', async () => {
		const cases: [Record<string, unknown>, number, string][] = [
			[{ ...keys(), publicKey: b64uEncode(new Uint8Array(31)) }, 400, 'INVALID_INPUT'],
			[{ ...keys(), publicKey: `${keys().publicKey}=` }, 400, 'INVALID_INPUT'],
			[{ ...keys(), signingPublicKey: undefined }, 400, 'INVALID_INPUT'],
			[{ ...keys(), webhookUrl: 'ftp://example.com/hook' }, 400, 'INVALID_REQUEST'],
			[{ ...keys(), webhookUrl: '/relative' }, 400, 'INVALID_REQUEST'],
			[{ ...keys(), keyVersion: 0 }, 400, 'INVALID_INPUT'],
			[{ ...keys(), apiKey: 'sk_live_short' }, 400, 'INVALID_REQUEST'],
			[{ ...keys(), webhookSecret: 'whsec_short' }, 400, 'INVALID_REQUEST']
		];
		for (const [body, status, code] of cases) expectError(await env.simulator.control('POST', '/_sim/companies', body), status, code);
		const fixed = `sk_live_${'Q'.repeat(43)}`;
		expect((await env.simulator.control('POST', '/_sim/companies', { ...keys(), apiKey: fixed })).status).toBe(201);
		expect((await env.simulator.control('POST', '/_sim/companies', { ...keys(), apiKey: fixed })).status).toBe(409);
	});

	it('changes the webhook URL', async () => {
		const { company } = await env.isolatedCompany();
		const patched = await env.simulator.control('PATCH', `/_sim/companies/${company.companyId}`, {
			webhookUrl: 'https://inbox.example/webhooks/service'
		});
		expect(patched.body.webhookUrl).toBe('https://inbox.example/webhooks/service');
		expectError(
			await env.simulator.control('PATCH', `/_sim/companies/${company.companyId}`, { webhookUrl: 'nope' }),
			400,
			'INVALID_REQUEST'
		);
		expectError(await env.simulator.control('GET', '/_sim/companies/cmp_unknown'), 404, 'NOT_FOUND');
	});
});

describe('company key rotation (contract 6.6)', () => {
	const rotation = (company: TestCompany, toKeyVersion: number, toPublicKey: Uint8Array, signingKey = company.signing.secretKey) => ({
		publicKey: b64uEncode(toPublicKey),
		keyVersion: toKeyVersion,
		rotationSignature: signRotation(
			{ companyId: company.companyId, fromKeyVersion: 1, fromPublicKey: company.keys.publicKey, toKeyVersion, toPublicKey },
			signingKey
		)
	});

	it('refuses a statement not signed with signing.pub, a version not greater, a reused or malformed key, changing nothing', async () => {
		const { company } = await env.isolatedCompany();
		const next = generateX25519KeyPair().publicKey;
		const path = `/_sim/companies/${company.companyId}/keys/rotate`;
		expectError(
			await env.simulator.control('POST', path, rotation(company, 2, next, generateEd25519KeyPair().secretKey)),
			400,
			'SIGNATURE_INVALID'
		);
		expectError(await env.simulator.control('POST', path, { ...rotation(company, 2, next), keyVersion: 3 }), 400, 'SIGNATURE_INVALID');
		expectError(await env.simulator.control('POST', path, { ...rotation(company, 2, next), keyVersion: 1 }), 400, 'INVALID_INPUT');
		expectError(await env.simulator.control('POST', path, { ...rotation(company, 2, next), publicKey: 'AAAA' }), 400, 'INVALID_INPUT');
		expectError(
			await env.simulator.control('POST', path, { ...rotation(company, 2, next), rotationSignature: 'AAAA' }),
			400,
			'INVALID_INPUT'
		);
		expectError(await env.simulator.control('POST', path, rotation(company, 2, company.keys.publicKey)), 400, 'INVALID_INPUT');
		const view = await env.simulator.control('GET', `/_sim/companies/${company.companyId}`);
		expect(view.body).toMatchObject({ keyVersion: 1, publicKey: b64uEncode(company.keys.publicKey), previousKeys: [] });
	});

	it('seals new conversations for the new key while older ones keep the old wrap', async () => {
		const { company, client } = await env.isolatedCompany();
		const before = await startConversation(env.simulator, client, company);
		const oldKey = await openCompanyKey(client, company, before.conversationId);
		const next = generateX25519KeyPair();
		const rotated = await env.simulator.control(
			'POST',
			`/_sim/companies/${company.companyId}/keys/rotate`,
			rotation(company, 2, next.publicKey)
		);
		expect(rotated.status).toBe(200);
		expect(rotated.body).toMatchObject({ keyVersion: 2, publicKey: b64uEncode(next.publicKey), previousKeys: [{ keyVersion: 1 }] });

		const staleInvite = await client.post('/v1/invites', {});
		const staleLink = buildInviteLink(staleInvite.body.inviteUrl, generateInviteSecret(), company.keys.publicKey);
		expectError(await env.simulator.control('POST', '/_sim/customers/redeem', { link: staleLink }), 409, 'KEY_MISMATCH');

		const rotatedCompany = { ...company, keys: next, keyPairs: [next, company.keys] };
		const after = await startConversation(env.simulator, client, rotatedCompany);
		const afterWrap = (await client.get(`/v1/conversations/${after.conversationId}`)).body.wrapForCompany;
		expect(openConversationKey(afterWrap, after.conversationId, [next])).toHaveLength(32);
		const beforeWrap = (await client.get(`/v1/conversations/${before.conversationId}`)).body.wrapForCompany;
		expect(() => openConversationKey(beforeWrap, before.conversationId, [next])).toThrow(/does not open/);
		expect(openConversationKey(beforeWrap, before.conversationId, [next, company.keys])).toEqual(oldKey);
	});
});

describe('the control API is for this machine only', () => {
	it('knows loopback addresses', () => {
		for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(address), address).toBe(true);
		for (const address of ['192.0.2.2', '10.0.0.1', '::ffff:10.0.0.1', 'fd00::2', '', '127.0.0.1.evil'])
			expect(isLoopbackAddress(address), address).toBe(false);
	});

	it('answers 403 to a request that arrives on another interface, while /v1 stays reachable there', async () => {
		const address = Object.values(networkInterfaces())
			.flat()
			.find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
		expect(address, 'this test needs a non-loopback IPv4 interface').toBeDefined();
		const open = await startTestSimulator({ host: '0.0.0.0' });
		try {
			const remote = open.url.replace('127.0.0.1', address as string);
			const control = await fetch(`${remote}/_sim/health`);
			expect(control.status).toBe(403);
			expect((await control.json()).error.code).toBe('FORBIDDEN');
			expect((await fetch(`${remote}/_sim/app`)).status).toBe(403);
			expect((await fetch(`${remote}/v1/conversations`)).status).toBe(401);
			expect((await fetch(`${open.url}/_sim/health`)).status).toBe(200);
		} finally {
			await open.close();
		}
	});

	it('refuses browser requests from other origins and non-JSON bodies', async () => {
		const foreign = await fetch(`${env.simulator.url}/_sim/clock`, { headers: { origin: 'http://evil.example' } });
		expect(foreign.status).toBe(403);
		const own = await fetch(`${env.simulator.url}/_sim/clock`, { headers: { origin: env.simulator.url } });
		expect(own.status).toBe(200);
		const form = await fetch(`${env.simulator.url}/_sim/customers/redeem`, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: 'shortCode=ABCD-EFGH'
		});
		expect(form.status).toBe(400);
		expectError(await env.simulator.control('GET', '/_sim/nothing'), 404, 'NOT_FOUND');
		expectError(await env.simulator.control('PUT', '/_sim/clock', {}), 405, 'METHOD_NOT_ALLOWED');
	});

	it('serves the customer page at /_sim/app and at invitation links', async () => {
		for (const path of ['/_sim/app', '/invite/inv_anything']) {
			const page = await fetch(env.simulator.url + path);
			expect(page.status).toBe(200);
			expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
			expect(await page.text()).toContain('Customer phone');
		}
	});
});

describe('the clock', () => {
	it('reads and sets offset, scale and the signature clock; refuses nonsense', async () => {
		const set = await env.simulator.control('POST', '/_sim/clock', { offsetSeconds: 3600, scale: 0, signatureClock: 'simulated' });
		expect(set.body).toMatchObject({ scale: 0, signatureClock: 'simulated' });
		expect(Math.abs(set.body.nowMs - (Date.now() + 3_600_000))).toBeLessThan(5000);
		const frozen = (await env.simulator.control('GET', '/_sim/clock')).body.nowMs;
		await new Promise((resolve) => setTimeout(resolve, 30));
		expect((await env.simulator.control('GET', '/_sim/clock')).body.nowMs).toBe(frozen);
		expect((await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 90 })).body.nowMs).toBe(frozen + 90_000);
		for (const body of [
			{ scale: -1 },
			{ scale: 'fast' },
			{ offsetSeconds: Number.MAX_VALUE },
			{ signatureClock: 'server' },
			{ advanceSeconds: '1' }
		]) {
			expectError(await env.simulator.control('POST', '/_sim/clock', body), 400, 'INVALID_REQUEST');
		}
	});
});
