import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSignatureHeader, signRequest, verifyWebhookSignature } from './hmac';
import { initCrypto } from './sodium';
import { codeOfCall } from '$test-support/error-codes';

beforeAll(() => initCrypto());

const hex = 'a'.repeat(64);

describe('X-Service-Signature header parsing (contract 5.2 step 2)', () => {
	it('trims spaces around keys and values and ignores unknown keys', () => {
		expect(parseSignatureHeader(` t = 12 , v0=zz, v1 = ${hex} `)).toEqual({ t: 12, tText: '12', v1: hex });
	});

	it('distinguishes a missing header from a malformed one', () => {
		expect(codeOfCall(() => parseSignatureHeader(null))).toBe('SIGNATURE_MISSING');
		expect(codeOfCall(() => parseSignatureHeader(undefined))).toBe('SIGNATURE_MISSING');
		for (const malformed of [
			'',
			't=1',
			`v1=${hex}`,
			`t=1,v1=${hex},t=2`,
			`t=1;v1=${hex}`,
			`t=-1,v1=${hex}`,
			`t=1.5,v1=${hex}`,
			`t=1,v1=${hex}0`,
			`t=1,v1`
		]) {
			expect(
				codeOfCall(() => parseSignatureHeader(malformed)),
				malformed
			).toBe('SIGNATURE_MALFORMED');
		}
	});
});

describe('webhook verification (contract 5.2)', () => {
	const body = '{"id":"evt_1"}';
	it('accepts the current or the previous secret, and nothing else', () => {
		const { header } = signWebhook('whsec_old', 1000, body);
		expect(() => verifyWebhookSignature({ secrets: ['whsec_new', 'whsec_old'], header, body, now: 1100 })).not.toThrow();
		expect(codeOfCall(() => verifyWebhookSignature({ secrets: ['whsec_new'], header, body, now: 1100 }))).toBe('SIGNATURE_INVALID');
	});

	it('refuses a signature that differs in any single hex digit, the last ones included', () => {
		const { header } = signWebhook('whsec_old', 1000, body);
		const v1 = /v1=([0-9a-f]{64})/.exec(header)![1];
		for (let position = 0; position < 64; position++) {
			const digit = v1[position] === '0' ? '1' : '0';
			const altered = header.replace(v1, v1.slice(0, position) + digit + v1.slice(position + 1));
			expect(
				codeOfCall(() => verifyWebhookSignature({ secrets: ['whsec_old'], header: altered, body, now: 1100 })),
				String(position)
			).toBe('SIGNATURE_INVALID');
		}
	});

	it('checks the window before the signature', () => {
		const { header } = signWebhook('whsec_a', 1000, body);
		expect(codeOfCall(() => verifyWebhookSignature({ secrets: ['whsec_b'], header, body, now: 1301 }))).toBe('SIGNATURE_EXPIRED');
		expect(codeOfCall(() => verifyWebhookSignature({ secrets: ['whsec_a'], header, body, now: 699 }))).toBe('SIGNATURE_EXPIRED');
		expect(() => verifyWebhookSignature({ secrets: ['whsec_a'], header, body, now: 1300 })).not.toThrow();
	});

	it('signs the timestamp as written in the header, a leading zero included', () => {
		const mac = (signed: string) => createHmac('sha256', 'whsec_a').update(`${signed}.${body}`).digest('hex');
		expect(() => verifyWebhookSignature({ secrets: ['whsec_a'], header: `t=01000,v1=${mac('01000')}`, body, now: 1000 })).not.toThrow();
		expect(codeOfCall(() => verifyWebhookSignature({ secrets: ['whsec_a'], header: `t=01000,v1=${mac('1000')}`, body, now: 1000 }))).toBe(
			'SIGNATURE_INVALID'
		);
	});

	it('verifies the raw bytes, not a re-serialization', () => {
		const { header } = signWebhook('whsec_a', 1000, body);
		const reserialized = JSON.stringify(JSON.parse(body), null, 1);
		expect(codeOfCall(() => verifyWebhookSignature({ secrets: ['whsec_a'], header, body: reserialized, now: 1000 }))).toBe(
			'SIGNATURE_INVALID'
		);
		expect(() => verifyWebhookSignature({ secrets: ['whsec_a'], header, body: new TextEncoder().encode(body), now: 1000 })).not.toThrow();
	});
});

describe('request signing (contract 5.1)', () => {
	it('refuses a lowercase method and a path without leading slash', () => {
		expect(codeOfCall(() => signRequest({ secret: 's', t: 1, method: 'get', pathAndQuery: '/v1', body: '' }))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => signRequest({ secret: 's', t: 1, method: 'GET', pathAndQuery: 'v1', body: '' }))).toBe('INVALID_INPUT');
	});

	it('signs bytes and text bodies alike', () => {
		const text = signRequest({ secret: 's', t: 1, method: 'POST', pathAndQuery: '/v1/x', body: '{"a":"é"}' });
		const bytes = signRequest({ secret: 's', t: 1, method: 'POST', pathAndQuery: '/v1/x', body: new TextEncoder().encode('{"a":"é"}') });
		expect(bytes).toEqual(text);
	});
});

describe('the sentences of signature errors', () => {
	it('say what is wrong with the header, the request or the signature', () => {
		const reason = (call: () => unknown) => {
			try {
				call();
			} catch (error) {
				return (error as Error).message;
			}
			return 'no error';
		};
		expect(reason(() => parseSignatureHeader(null))).toBe('X-Service-Signature is missing');
		expect(reason(() => parseSignatureHeader(`t=1,v1`))).toBe('a signature part has no =');
		expect(reason(() => parseSignatureHeader(`=1,t=1,v1=${hex}`))).toBe('no error');
		expect(reason(() => parseSignatureHeader(`t=1,t=2,v1=${hex}`))).toBe('the signature repeats t');
		expect(reason(() => parseSignatureHeader(`t=x,v1=${hex}`))).toBe('t must be an integer');
		expect(reason(() => parseSignatureHeader(`t=1,v1=${hex.slice(1)}`))).toBe('v1 must be 64 lowercase hex characters');
		const { header } = signWebhook('whsec_a', 1000, '{}');
		expect(reason(() => verifyWebhookSignature({ secrets: ['whsec_a'], header, body: '{}', now: 1301 }))).toBe(
			'the signature timestamp is outside ±300 s'
		);
		expect(reason(() => verifyWebhookSignature({ secrets: ['whsec_a'], header, body: '\ud800', now: 1000 }))).toBe(
			'body contains a lone surrogate'
		);
		expect(reason(() => signRequest({ secret: 's', t: 1.5, method: 'GET', pathAndQuery: '/v1', body: '' }))).toBe(
			't must be integer seconds'
		);
		expect(reason(() => signRequest({ secret: 's', t: 1, method: 'GET ', pathAndQuery: '/v1', body: '' }))).toBe(
			'method must be uppercase'
		);
		expect(reason(() => signRequest({ secret: 's', t: 1, method: 'xGET', pathAndQuery: '/v1', body: '' }))).toBe(
			'method must be uppercase'
		);
		expect(reason(() => signRequest({ secret: 's', t: 1, method: 'GET', pathAndQuery: 'v1', body: '' }))).toBe(
			'pathAndQuery must start with /'
		);
		expect(reason(() => signRequest({ secret: '\ud800', t: 1, method: 'GET', pathAndQuery: '/v1', body: '' }))).toBe(
			'secret contains a lone surrogate'
		);
	});

	it('keep the canonical string of a byte body as its text', () => {
		const { canonical } = signRequest({
			secret: 's',
			t: 7,
			method: 'POST',
			pathAndQuery: '/v1/x',
			body: new TextEncoder().encode('{"a":1}')
		});
		expect(canonical).toBe('7.POST./v1/x.{"a":1}');
	});

	it('keep a text body in the canonical string exactly as given, a leading byte order mark included', () => {
		const request = { secret: 's', t: 7, method: 'POST', pathAndQuery: '/v1/x' };
		expect(signRequest({ ...request, body: '\ufeff{"a":1}' }).canonical).toBe('7.POST./v1/x.\ufeff{"a":1}');
	});

	it('name a webhook secret that is no text', () => {
		const { header } = signWebhook('s', 1000, '{}');
		expect(() => verifyWebhookSignature({ secrets: ['\ud800'], header, body: '{}', now: 1000 })).toThrow(
			'secret contains a lone surrogate'
		);
	});
});

/** A webhook signature made the way the service makes it: HMAC over `t + "." + rawBody`. */
function signWebhook(secret: string, t: number, rawBody: string) {
	return { header: `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${rawBody}`).digest('hex')}` };
}
