import { describe, expect, it } from 'vitest';
import {
	b64uEncode,
	ContractError,
	generateX25519KeyPair,
	newClientMessageId,
	sealConversationKey,
	signRoster
} from '../../lib/crypto/index';
import { expectError, openCompanyKey, startConversation, useSimulator } from '../testing/fixture';
import { parseV1JsonObject } from './json';

const env = useSimulator();

const parse = (text: string) => parseV1JsonObject(Buffer.from(text));

describe('parseV1JsonObject', () => {
	it('hands numbers written with a fraction or an exponent over as their literal text', () => {
		expect(parse('{"a":1.0,"b":[1e0,-2.5E+3,16.5],"c":{"keyVersion":1.00}}')).toEqual({
			a: '1.0',
			b: ['1e0', '-2.5E+3', '16.5'],
			c: { keyVersion: '1.00' }
		});
	});

	it('leaves integers, and digits inside strings, as they are', () => {
		const text = '{"v":1,"n":-0,"big":26220800,"s":"1.0","q":"say \\"2.5\\" \\\\","e":"1e3"}';
		expect(parse(text)).toEqual(JSON.parse(text));
		expect(parse('\ufeff{"size":16}')).toEqual({ size: 16 });
	});

	it('refuses what is not a JSON object with 400 INVALID_REQUEST, also text the rewriting would make valid', () => {
		const failure = (text: string) => {
			try {
				parse(text);
			} catch (error) {
				return error instanceof ContractError ? [error.code, error.status] : error;
			}
			return 'accepted';
		};
		for (const text of ['[1.0]', '1.0', '{"a":01.5}', '{"a":1.}', '{"a":.5}', '']) {
			expect(failure(text), text).toEqual(['INVALID_REQUEST', 400]);
		}
	});
});

describe('integers written as 1.0 on /v1 (contract 1.1)', () => {
	/** The body with `MARK` written as `<integer>.0` is refused; the same body with the integer is taken. */
	async function refusedThenTaken(path: string, body: string, integer: string, status: number, code: string, taken: number) {
		expectError(await env.client.post(path, body.replace('MARK', `${integer}.0`)), status, code);
		expect((await env.client.post(path, body.replace('MARK', integer))).status).toBe(taken);
	}

	it('refuses them in the envelope (400 INVALID_ENVELOPE), size and expiresIn (400 INVALID_REQUEST)', async () => {
		const { conversationId } = await startConversation(env.simulator, env.client, env.company);
		const envelope = (field: string) =>
			JSON.stringify({
				conversationId,
				contentType: 'text',
				encryption: {
					v: 1,
					scheme: 'sc1',
					keyVersion: 1,
					clientMessageId: newClientMessageId(),
					nonce: b64uEncode(new Uint8Array(24)),
					ciphertext: b64uEncode(new Uint8Array(272))
				}
			}).replace(`"${field}":1`, `"${field}":MARK`);
		await refusedThenTaken('/v1/messages', envelope('keyVersion'), '1', 400, 'INVALID_ENVELOPE', 201);
		await refusedThenTaken('/v1/messages', envelope('v'), '1', 400, 'INVALID_ENVELOPE', 201);
		await refusedThenTaken(`/v1/conversations/${conversationId}/attachments`, '{"size":MARK}', '16', 400, 'INVALID_REQUEST', 201);
		expectError(await env.client.post(`/v1/conversations/${conversationId}/attachments`, '{"size":1.6e1}'), 400, 'INVALID_REQUEST');
		await refusedThenTaken('/v1/invites', '{"expiresIn":MARK}', '3600', 400, 'INVALID_REQUEST', 201);
	});

	it('refuses them in a roster (400 INVALID_INPUT) and in agent wraps (400 INVALID_REQUEST, 400 INVALID_WRAP)', async () => {
		const { company, client } = await env.isolatedCompany();
		const agent = { agentKeyId: 'agk_jsonagent1', publicKey: b64uEncode(generateX25519KeyPair().publicKey) };
		const roster = { rosterVersion: 1, issuedAt: '2026-11-22T10:00:00Z', agents: [agent] };
		const signed = { ...roster, signature: signRoster({ companyId: company.companyId, ...roster }, company.signing.secretKey) };
		expectError(
			await client.post('/v1/roster', JSON.stringify(signed).replace('"rosterVersion":1', '"rosterVersion":1.0')),
			400,
			'INVALID_INPUT'
		);
		expect((await client.post('/v1/roster', signed)).status).toBe(201);

		const { conversationId } = await startConversation(env.simulator, client, company);
		const wrap = sealConversationKey({
			conversationKey: await openCompanyKey(client, company, conversationId),
			conversationId,
			keyVersion: 1,
			recipientPublicKey: generateX25519KeyPair().publicKey
		});
		const body = JSON.stringify({ rosterVersion: 1, wraps: [{ agentKeyId: agent.agentKeyId, wrap }] });
		const path = `/v1/conversations/${conversationId}/agent-wraps`;
		expectError(await client.post(path, body.replace('"rosterVersion":1', '"rosterVersion":1.0')), 400, 'INVALID_REQUEST');
		expectError(await client.post(path, body.replace('"keyVersion":1', '"keyVersion":1.0')), 400, 'INVALID_WRAP');
		expect((await client.post(path, body)).status).toBe(200);
	});
});
