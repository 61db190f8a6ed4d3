import { beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, newClientMessageId } from '../../lib/crypto/index';
import {
	companyEnvelope,
	expectError,
	openCompanyKey,
	startConversation,
	useSimulator,
	type StartedConversation
} from '../testing/fixture';

const env = useSimulator();
let conversation: StartedConversation;
let key: Uint8Array;

beforeAll(async () => {
	conversation = await startConversation(env.simulator, env.client, env.company);
	key = await openCompanyKey(env.client, env.company, conversation.conversationId);
});

/** An envelope of the right shape with random bytes: the service cannot read it anyway. */
function shapedEnvelope(overrides: Record<string, unknown> = {}, ciphertextBytes = 272, nonceBytes = 24) {
	return {
		v: 1,
		scheme: 'sc1',
		keyVersion: 1,
		clientMessageId: newClientMessageId(),
		nonce: b64uEncode(crypto.getRandomValues(new Uint8Array(nonceBytes))),
		ciphertext: b64uEncode(new Uint8Array(ciphertextBytes).fill(9)),
		...overrides
	};
}

const sendText = (encryption: unknown, conversationId = conversation.conversationId) =>
	env.client.post('/v1/messages', { conversationId, contentType: 'text', encryption });

describe('sending (contract 4.2, 7.3)', () => {
	it('stores a reply and answers 201 with its history item', async () => {
		const encryption = companyEnvelope(key, conversation.conversationId, 'hello');
		const sent = await sendText(encryption);
		expect(sent.status).toBe(201);
		expect(sent.body).toEqual({
			messageId: expect.stringMatching(/^msg_/),
			conversationId: conversation.conversationId,
			seq: expect.any(Number),
			senderType: 'company',
			contentType: 'text',
			encryption,
			createdAt: expect.any(String)
		});
	});

	it('checks the envelope shape only: 400 INVALID_ENVELOPE for each malformed field', async () => {
		const cases: [string, unknown][] = [
			['missing', undefined],
			['v 2', shapedEnvelope({ v: 2 })],
			['scheme', shapedEnvelope({ scheme: 'sc2' })],
			['keyVersion 0', shapedEnvelope({ keyVersion: 0 })],
			['keyVersion "1"', shapedEnvelope({ keyVersion: '1' })],
			['clientMessageId', shapedEnvelope({ clientMessageId: 'has space' })],
			['clientMessageId newline', shapedEnvelope({ clientMessageId: 'abc\n' })],
			['nonce of 23 bytes', shapedEnvelope({}, 272, 23)],
			['nonce of 25 bytes', shapedEnvelope({}, 272, 25)],
			['padded base64', shapedEnvelope({ ciphertext: `${b64uEncode(new Uint8Array(272))}=` })],
			['ciphertext of 256 bytes (no padding block)', shapedEnvelope({}, 256)],
			['ciphertext of 271 bytes', shapedEnvelope({}, 271)],
			['(len − 16) not a multiple of 256', shapedEnvelope({}, 273)],
			['over 66 KB', shapedEnvelope({}, 16 + 264 * 256)]
		];
		for (const [name, encryption] of cases) {
			const result = await sendText(encryption);
			expect([result.status, result.body.error?.code], name).toEqual([400, 'INVALID_ENVELOPE']);
		}
		expect((await sendText(shapedEnvelope({}, 16 + 263 * 256))).status).toBe(201);
	});

	it('checks the body shape first: 400 INVALID_REQUEST', async () => {
		const encryption = shapedEnvelope();
		const base = { conversationId: conversation.conversationId, encryption };
		expectError(await env.client.post('/v1/messages', { ...base, contentType: 'image' }), 400, 'INVALID_REQUEST');
		expectError(
			await env.client.post('/v1/messages', { ...base, contentType: 'text', attachment: { attachmentId: 'att_12345678' } }),
			400,
			'INVALID_REQUEST'
		);
		expectError(await env.client.post('/v1/messages', { ...base, contentType: 'attachment' }), 400, 'INVALID_REQUEST');
		expectError(await env.client.post('/v1/messages', { contentType: 'text', encryption }), 400, 'INVALID_REQUEST');
	});

	it('answers a send without encryption 400 INVALID_ENVELOPE, after the body shape and before the conversation', async () => {
		const send = (body: Record<string, unknown>) => env.client.post('/v1/messages', body);
		expectError(await send({ conversationId: conversation.conversationId, contentType: 'text' }), 400, 'INVALID_ENVELOPE');
		expectError(
			await send({ conversationId: conversation.conversationId, contentType: 'text', encryption: null }),
			400,
			'INVALID_ENVELOPE'
		);
		expectError(await send({ conversationId: 'conv_unknown', contentType: 'text' }), 400, 'INVALID_ENVELOPE');
		expectError(await send({ conversationId: conversation.conversationId, contentType: 'image' }), 400, 'INVALID_REQUEST');
		expectError(await send({ conversationId: conversation.conversationId, contentType: 'attachment' }), 400, 'INVALID_REQUEST');
	});

	it('refuses a conversationId outside the id rule as a malformed body, 400 INVALID_REQUEST, before the envelope', async () => {
		for (const conversationId of ['has space', 'conv_x\n', 'c'.repeat(129), 'conv/x', 42]) {
			expectError(await sendText(shapedEnvelope(), conversationId as string), 400, 'INVALID_REQUEST');
			expectError(await sendText(shapedEnvelope({ v: 2 }), conversationId as string), 400, 'INVALID_REQUEST');
		}
		expectError(await sendText(shapedEnvelope(), 'c'.repeat(128)), 404, 'NOT_FOUND');
		// In a path, an id outside the rule is a path naming no conversation.
		expectError(await env.client.get('/v1/conversations/conv!x'), 404, 'NOT_FOUND');
	});

	it('answers 404 NOT_FOUND for an unknown conversation, after the envelope check', async () => {
		expectError(await sendText(shapedEnvelope(), 'conv_unknown'), 404, 'NOT_FOUND');
		expectError(await sendText(shapedEnvelope({ v: 2 }), 'conv_unknown'), 400, 'INVALID_ENVELOPE');
	});

	it('answers 409 KEY_VERSION_MISMATCH for another keyVersion', async () => {
		expectError(await sendText(shapedEnvelope({ keyVersion: 2 })), 409, 'KEY_VERSION_MISMATCH');
	});

	it('answers 409 CONVERSATION_PENDING before the customer redeemed', async () => {
		const pending = await env.client.post('/v1/invites', {});
		expectError(await sendText(shapedEnvelope(), pending.body.conversationId), 409, 'CONVERSATION_PENDING');
	});

	it('answers 409 CONVERSATION_AWAITING_KEY after a re-invitation was redeemed', async () => {
		const other = await startConversation(env.simulator, env.client, env.company);
		const reinvite = await env.client.post(`/v1/conversations/${other.conversationId}/reinvite`, {});
		await env.simulator.control('POST', `/_sim/customers/${other.customerId}/change-device`, { shortCode: reinvite.body.shortCode });
		expectError(await sendText(shapedEnvelope(), other.conversationId), 409, 'CONVERSATION_AWAITING_KEY');
	});

	it('answers 410 USER_DELETED once the user deleted the account', async () => {
		const other = await startConversation(env.simulator, env.client, env.company);
		await env.simulator.control('POST', `/_sim/customers/${other.customerId}/delete`, {});
		expectError(await sendText(shapedEnvelope(), other.conversationId), 410, 'USER_DELETED');
	});

	it('returns the earlier message for a repeated clientMessageId, storing nothing new', async () => {
		const clientMessageId = newClientMessageId();
		const first = await sendText(companyEnvelope(key, conversation.conversationId, 'once', clientMessageId));
		const again = await sendText(companyEnvelope(key, conversation.conversationId, 'once', clientMessageId));
		expect([first.status, again.status]).toEqual([201, 200]);
		expect(again.body).toEqual(first.body);
		const history = await env.client.get(`/v1/conversations/${conversation.conversationId}/messages?limit=200`);
		expect(
			history.body.data.filter((item: { encryption: { clientMessageId: string } }) => item.encryption.clientMessageId === clientMessageId)
		).toHaveLength(1);
	});
});

describe('attachment references (contract 7.3)', () => {
	const sendAttachment = (attachmentId: string) =>
		env.client.post('/v1/messages', {
			conversationId: conversation.conversationId,
			contentType: 'attachment',
			attachment: { attachmentId },
			encryption: shapedEnvelope()
		});

	it('answers 404 ATTACHMENT_NOT_FOUND, 409 ATTACHMENT_NOT_UPLOADED and 409 ATTACHMENT_ALREADY_USED', async () => {
		expectError(await sendAttachment('att_doesnotexist0000'), 404, 'ATTACHMENT_NOT_FOUND');
		const upload = await env.client.post(`/v1/conversations/${conversation.conversationId}/attachments`, { size: 16 });
		expectError(await sendAttachment(upload.body.attachmentId), 409, 'ATTACHMENT_NOT_UPLOADED');
		const put = await fetch(upload.body.uploadUrl, { method: 'PUT', headers: upload.body.headers, body: new Uint8Array(16) });
		expect(put.status).toBe(200);
		const sent = await sendAttachment(upload.body.attachmentId);
		expect(sent.status).toBe(201);
		expect(sent.body.attachment).toEqual({ attachmentId: upload.body.attachmentId, size: 16 });
		expectError(await sendAttachment(upload.body.attachmentId), 409, 'ATTACHMENT_ALREADY_USED');
	});

	it('refuses an attachment of another conversation as not found', async () => {
		const other = await startConversation(env.simulator, env.client, env.company);
		const upload = await env.client.post(`/v1/conversations/${other.conversationId}/attachments`, { size: 16 });
		await fetch(upload.body.uploadUrl, { method: 'PUT', headers: upload.body.headers, body: new Uint8Array(16) });
		expectError(await sendAttachment(upload.body.attachmentId), 404, 'ATTACHMENT_NOT_FOUND');
	});
});

describe('history (contract-gaps §5)', () => {
	let ids: string[];
	let path: string;

	beforeAll(async () => {
		const paged = await startConversation(env.simulator, env.client, env.company);
		const pagedKey = await openCompanyKey(env.client, env.company, paged.conversationId);
		path = `/v1/conversations/${paged.conversationId}/messages`;
		ids = [];
		for (let i = 1; i <= 7; i++) {
			const sent =
				i % 2
					? await env.simulator.control('POST', `/_sim/customers/${paged.customerId}/messages`, { text: `user ${i}` })
					: await env.client.post('/v1/messages', {
							conversationId: paged.conversationId,
							contentType: 'text',
							encryption: companyEnvelope(pagedKey, paged.conversationId, `company ${i}`)
						});
			ids.push(sent.body.messageId);
		}
	});

	const page = async (query: string) => {
		const result = await env.client.get(`${path}${query}`);
		return {
			ids: result.body.data.map((item: { messageId: string }) => item.messageId),
			hasMore: result.body.hasMore,
			seqs: result.body.data.map((item: { seq: number }) => item.seq)
		};
	};

	it('gives the newest messages oldest first, with senderType on each', async () => {
		const result = await env.client.get(path);
		expect(result.body.data.map((item: { seq: number; senderType: string }) => [item.seq, item.senderType])).toEqual([
			[1, 'user'],
			[2, 'company'],
			[3, 'user'],
			[4, 'company'],
			[5, 'user'],
			[6, 'company'],
			[7, 'user']
		]);
		expect(result.body.hasMore).toBe(false);
		expect(await page('?limit=3')).toMatchObject({ ids: ids.slice(4), hasMore: true });
	});

	it('pages back with before and forward with after', async () => {
		expect(await page(`?limit=3&before=${ids[4]}`)).toMatchObject({ seqs: [2, 3, 4], hasMore: true });
		expect(await page(`?limit=3&before=${ids[1]}`)).toMatchObject({ seqs: [1], hasMore: false });
		expect(await page(`?limit=3&after=${ids[0]}`)).toMatchObject({ seqs: [2, 3, 4], hasMore: true });
		expect(await page(`?limit=3&after=${ids[3]}`)).toMatchObject({ seqs: [5, 6, 7], hasMore: false });
		expect(await page(`?after=${ids[6]}`)).toMatchObject({ seqs: [], hasMore: false });
	});

	it('refuses before with after, an unknown message and a bad limit', async () => {
		expectError(await env.client.get(`${path}?before=${ids[3]}&after=${ids[1]}`), 400, 'INVALID_REQUEST');
		expectError(await env.client.get(`${path}?before=msg_unknown`), 404, 'NOT_FOUND');
		expectError(await env.client.get(`${path}?limit=0`), 400, 'INVALID_REQUEST');
		expectError(await env.client.get(`${path}?cursor=abc`), 400, 'INVALID_REQUEST');
	});

	it('is empty for a pending conversation', async () => {
		const pending = await env.client.post('/v1/invites', {});
		expect((await env.client.get(`/v1/conversations/${pending.body.conversationId}/messages`)).body).toEqual({ data: [], hasMore: false });
	});
});
