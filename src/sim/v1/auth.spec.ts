import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectError, registerCompany, useSimulator, V1Client } from '../testing/fixture';

const env = useSimulator();

const vectors = JSON.parse(readFileSync(new URL('../../../vectors/conformance.json', import.meta.url), 'utf8'));

afterEach(() => env.resetClock());

/** Freezes the simulated clock and makes signatures use it; returns its time in seconds. */
async function freezeClock(atSeconds?: number): Promise<number> {
	const body: Record<string, unknown> = { scale: 0, signatureClock: 'simulated' };
	if (atSeconds !== undefined) body.offsetSeconds = atSeconds - Date.now() / 1000;
	const reading = await env.simulator.control('POST', '/_sim/clock', body);
	return Math.floor(reading.body.nowMs / 1000);
}

/** The v1 of a canonical string computed by hand with node:crypto, for strings the core refuses to build. */
function manualV1(t: string, method: string, pathAndQuery: string, body = ''): string {
	return createHmac('sha256', env.company.webhookSecret).update(`${t}.${method}.${pathAndQuery}.${body}`).digest('hex');
}

function manualHeader(method: string, pathAndQuery: string, body = ''): string {
	const t = String(Math.floor(Date.now() / 1000));
	return `t=${t},v1=${manualV1(t, method, pathAndQuery, body)}`;
}

/**
 * A signed GET through node:http, which sends the request target byte for byte (fetch would
 * percent-encode a raw `"`); `signedPathAndQuery` is what the signature covers.
 */
function rawGet(pathAndQuery: string, signedPathAndQuery = pathAndQuery): Promise<{ status: number; code: string | undefined }> {
	return new Promise((resolve, reject) => {
		const headers = { authorization: `Bearer ${env.company.apiKey}`, 'x-service-signature': manualHeader('GET', signedPathAndQuery) };
		const outgoing = httpRequest(`${env.simulator.url}/`, { method: 'GET', path: pathAndQuery, headers }, (response) => {
			let text = '';
			response.on('data', (chunk) => (text += chunk));
			response.on('end', () => resolve({ status: response.statusCode ?? 0, code: JSON.parse(text).error?.code }));
		});
		outgoing.on('error', reject);
		outgoing.end();
	});
}

describe('API key (contract 5.1)', () => {
	it('accepts the company key and answers as that company', async () => {
		const result = await env.client.get('/v1/conversations');
		expect(result.status).toBe(200);
		expect(result.body).toEqual({ data: [], nextCursor: null });
	});

	it('refuses a missing, non-Bearer or unknown key with 401 INVALID_API_KEY', async () => {
		expectError(await env.client.get('/v1/conversations', { apiKey: null }), 401, 'INVALID_API_KEY');
		expectError(
			await env.client.get('/v1/conversations', { headers: { authorization: `Basic ${env.company.apiKey}` } }),
			401,
			'INVALID_API_KEY'
		);
		const unknown = `sk_live_${'A'.repeat(43)}`;
		expectError(await env.client.get('/v1/conversations', { apiKey: unknown }), 401, 'INVALID_API_KEY');
	});

	it('refuses the scheme spelt bearer: contract 5.1 writes Bearer', async () => {
		for (const scheme of ['bearer', 'BEARER']) {
			const authorization = `${scheme} ${env.company.apiKey}`;
			expectError(await env.client.get('/v1/conversations', { headers: { authorization } }), 401, 'INVALID_API_KEY');
		}
	});
});

describe('request signature (contract 5.1, 7.3)', () => {
	it('refuses any difference between what was signed and what was sent with 401 INVALID_SIGNATURE', async () => {
		const cases = [
			env.client.get('/v1/conversations?limit=5', { signedPathAndQuery: '/v1/conversations?limit=6' }),
			env.client.get('/v1/conversations?limit=5', { signedPathAndQuery: '/v1/conversations' }),
			env.client.get('/v1/conversations/conv_x', { signedPathAndQuery: '/v1/conversations/conv_y' }),
			env.client.get('/v1/conversations?status=active', {
				headers: { 'x-service-signature': manualHeader('GET', `${env.simulator.url}/v1/conversations?status=active`) }
			}),
			env.client.post('/v1/invites', { expiresIn: 3600 }, { signedBody: '{"expiresIn":3601}' }),
			env.client.post('/v1/invites', { expiresIn: 3600 }, { signedBody: '{ "expiresIn": 3600 }' }),
			env.client.post('/v1/invites', {}, { signedMethod: 'GET' }),
			env.client.get('/v1/conversations', { secret: `whsec_${'B'.repeat(43)}` })
		];
		for (const result of await Promise.all(cases)) expectError(result, 401, 'INVALID_SIGNATURE');
	});

	it('signs the encoded form of the query: the decoded form does not match', async () => {
		const encoded = '/v1/conversations/conv_x/messages?before=m%2F1';
		expectError(
			await env.client.get(encoded, { signedPathAndQuery: '/v1/conversations/conv_x/messages?before=m/1' }),
			401,
			'INVALID_SIGNATURE'
		);
		expectError(await env.client.get(encoded), 404, 'NOT_FOUND');
	});

	it('refuses a signature over a lowercase method', async () => {
		expectError(
			await env.client.get('/v1/conversations', { headers: { 'x-service-signature': manualHeader('get', '/v1/conversations') } }),
			401,
			'INVALID_SIGNATURE'
		);
		expect(
			(await env.client.get('/v1/conversations', { headers: { 'x-service-signature': manualHeader('GET', '/v1/conversations') } })).status
		).toBe(200);
	});

	it('refuses a missing or malformed header with 401 INVALID_SIGNATURE', async () => {
		const good = env.client.signatureHeader('GET', '/v1/conversations', '');
		const malformed = ['', 't=abc,v1=' + '0'.repeat(64), good.toUpperCase(), good.replace(/v1=/, 'v2='), good + ',t=1'];
		for (const header of malformed) {
			expectError(await env.client.get('/v1/conversations', { headers: { 'x-service-signature': header } }), 401, 'INVALID_SIGNATURE');
		}
		const response = await fetch(`${env.simulator.url}/v1/conversations`, { headers: { authorization: `Bearer ${env.company.apiKey}` } });
		expect(response.status).toBe(401);
		expect((await response.json()).error.code).toBe('INVALID_SIGNATURE');
	});

	it('accepts |now − t| ≤ 300 s and answers 401 SIGNATURE_EXPIRED beyond, on both sides', async () => {
		const now = await freezeClock();
		expect((await env.client.get('/v1/conversations', { t: now - 300 })).status).toBe(200);
		expect((await env.client.get('/v1/conversations', { t: now + 300 })).status).toBe(200);
		expectError(await env.client.get('/v1/conversations', { t: now - 301 }), 401, 'SIGNATURE_EXPIRED');
		expectError(await env.client.get('/v1/conversations', { t: now + 301 }), 401, 'SIGNATURE_EXPIRED');
	});

	it('accepts the previous webhook secret for 24 h after a rotation, then only the new one', async () => {
		const rotating = await registerCompany(env.simulator, env.receiver.url);
		const old = new V1Client(env.simulator.url, rotating);
		const rotated = await env.simulator.control('POST', `/_sim/companies/${rotating.companyId}/webhook-secret/rotate`, {});
		expect(rotated.status).toBe(200);
		const fresh = new V1Client(env.simulator.url, { ...rotating, webhookSecret: rotated.body.webhookSecret });
		expect((await old.get('/v1/conversations')).status).toBe(200);
		expect((await fresh.get('/v1/conversations')).status).toBe(200);
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 24 * 3600 - 5 });
		expect((await old.get('/v1/conversations')).status).toBe(200);
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 10 });
		expectError(await old.get('/v1/conversations'), 401, 'INVALID_SIGNATURE');
		expect((await fresh.get('/v1/conversations')).status).toBe(200);
	});
});

describe('the signature header where the contract is silent (docs/simulator.md)', () => {
	const t = () => String(Math.floor(Date.now() / 1000));
	const withHeader = (header: string) => env.client.get('/v1/conversations', { headers: { 'x-service-signature': header } });

	it('reads the header as contract 5.2 step 2 reads a webhook’s: parts in any order, spaces around them', async () => {
		const now = t();
		const v1 = manualV1(now, 'GET', '/v1/conversations');
		for (const header of [`v1=${v1},t=${now}`, `t=${now}, v1=${v1}`, ` t = ${now} ,v1=${v1} `]) {
			expect((await withHeader(header)).status, header).toBe(200);
		}
	});

	it('refuses two v1 entries with 401 INVALID_SIGNATURE, even when both are right', async () => {
		const now = t();
		const v1 = manualV1(now, 'GET', '/v1/conversations');
		expect((await withHeader(`t=${now},v1=${v1}`)).status).toBe(200);
		expectError(await withHeader(`t=${now},v1=${v1},v1=${v1}`), 401, 'INVALID_SIGNATURE');
		expectError(await withHeader(`t=${now},v1=${'0'.repeat(64)},v1=${v1}`), 401, 'INVALID_SIGNATURE');
	});

	it('refuses t with a leading zero with 401 INVALID_SIGNATURE, whichever form was signed', async () => {
		const now = t();
		expectError(await withHeader(`t=0${now},v1=${manualV1(now, 'GET', '/v1/conversations')}`), 401, 'INVALID_SIGNATURE');
		expectError(await withHeader(`t=0${now},v1=${manualV1(`0${now}`, 'GET', '/v1/conversations')}`), 401, 'INVALID_SIGNATURE');
	});
});

describe('the public HMAC request vectors on the wire (contract 9.1)', () => {
	const requestCases = vectors.hmac.requests as {
		name: string;
		secret: string;
		t: number;
		method: string;
		pathAndQuery: string;
		body: string;
		header: string;
	}[];
	let vectorApiKey: string;

	beforeAll(async () => {
		const registered = await registerCompany(env.simulator, env.receiver.url, { webhookSecret: requestCases[0].secret });
		vectorApiKey = registered.apiKey;
	});

	const send = (vector: (typeof requestCases)[number], header: string) =>
		fetch(env.simulator.url + vector.pathAndQuery, {
			method: vector.method,
			headers: {
				authorization: `Bearer ${vectorApiKey}`,
				'x-service-signature': header,
				...(vector.body === '' ? {} : { 'content-type': 'application/json' }),
				...(vector.method === 'GET' ? {} : { 'idempotency-key': `vector-${vector.t}-${Math.random()}` })
			},
			body: vector.body === '' ? undefined : vector.body
		});

	it('holds the five request cases', () => {
		expect(requestCases).toHaveLength(5);
		expect(new Set(requestCases.map((vector) => vector.secret)).size).toBe(1);
	});

	for (const vector of requestCases) {
		it(`${vector.name}: the exact header passes authentication at t; one changed digit does not`, async () => {
			await freezeClock(vector.t);
			const accepted = await send(vector, vector.header);
			const body = await accepted.json();
			// The vectors name a conversation this env.company does not have: past authentication that is 404.
			expect(accepted.status, JSON.stringify(body)).toBe(vector.pathAndQuery === '/v1/conversations?status=active&limit=20' ? 200 : 404);
			const last = vector.header.at(-1) === '0' ? '1' : '0';
			const refused = await send(vector, vector.header.slice(0, -1) + last);
			expect(refused.status).toBe(401);
			expect((await refused.json()).error.code).toBe('INVALID_SIGNATURE');
		});
	}

	it('is SIGNATURE_EXPIRED 301 s after the vector time', async () => {
		const vector = requestCases[0];
		await freezeClock(vector.t + 301);
		const late = await send(vector, vector.header);
		expect(late.status).toBe(401);
		expect((await late.json()).error.code).toBe('SIGNATURE_EXPIRED');
	});
});

describe('bodies and routes', () => {
	it('refuses a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
		const big = JSON.stringify({ padding: 'x'.repeat(1024 * 1024) });
		expectError(await env.client.post('/v1/invites', big), 413, 'PAYLOAD_TOO_LARGE');
	});

	it('requires JSON: an empty POST, a body without Content-Type, a GET with a body and non-JSON are 400 INVALID_REQUEST', async () => {
		expectError(await env.client.post('/v1/invites', ''), 400, 'INVALID_REQUEST');
		expectError(await env.client.post('/v1/invites', '{}', { headers: { 'content-type': 'text/plain' } }), 400, 'INVALID_REQUEST');
		expectError(await env.client.post('/v1/invites', '{"expiresIn":'), 400, 'INVALID_REQUEST');
		expectError(await env.client.post('/v1/invites', '[]'), 400, 'INVALID_REQUEST');
		expect((await env.client.post('/v1/invites', '{}', { headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(
			201
		);
	});

	it('does not ask a GET without a body for its Content-Type', async () => {
		for (const type of ['application/json', 'text/plain']) {
			expect((await env.client.get('/v1/conversations', { headers: { 'content-type': type } })).status, type).toBe(200);
		}
	});

	it('signs and reads the query as sent: a raw " or {} reaches the parameter checks, an empty ? is an empty query', async () => {
		expect(await rawGet('/v1/conversations?status="active"')).toEqual({ status: 400, code: 'INVALID_REQUEST' });
		expect(await rawGet('/v1/conversations?status=%22active%22')).toEqual({ status: 400, code: 'INVALID_REQUEST' });
		expect(await rawGet('/v1/conversations?status="active"', '/v1/conversations?status=%22active%22')).toEqual({
			status: 401,
			code: 'INVALID_SIGNATURE'
		});
		expect(await rawGet('/v1/conversations?{}')).toEqual({ status: 400, code: 'INVALID_REQUEST' });
		expect(await rawGet('/v1/conversations?cursor={}')).toEqual({ status: 400, code: 'INVALID_REQUEST' });
		expect(await rawGet('/v1/conversations?')).toEqual({ status: 200, code: undefined });
		expect(await rawGet('/v1/conversations?', '/v1/conversations')).toEqual({ status: 401, code: 'INVALID_SIGNATURE' });
		expect(await rawGet('/v1/conversations/conv_unknown?')).toEqual({ status: 404, code: 'NOT_FOUND' });
	});

	it('answers 404 NOT_FOUND for an unknown path and 405 METHOD_NOT_ALLOWED for another method', async () => {
		expectError(await env.client.get('/v1/nothing'), 404, 'NOT_FOUND');
		const wrongMethod = await env.client.post('/v1/conversations', {});
		expectError(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
		expect(wrongMethod.headers.get('allow')).toBe('GET');
	});
});
