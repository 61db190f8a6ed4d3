/* eslint-disable @typescript-eslint/no-explicit-any -- webhook and response bodies are untyped JSON */
import { beforeAll, describe, expect, it } from 'vitest';
import {
	b64uDecode,
	b64uEncode,
	buildAttachmentMeta,
	buildInviteLink,
	decryptAttachment,
	decryptMessage,
	encryptAttachment,
	isoSeconds,
	generateEd25519KeyPair,
	generateInviteSecret,
	generateX25519KeyPair,
	openConversationKey,
	parseReceivedAttachmentMeta,
	sealConversationKey,
	signRoster,
	verifyInviteBinding,
	type X25519KeyPair
} from '../../lib/crypto/index';
import {
	companyEnvelope,
	openCompanyKey,
	registerCompany,
	startConversation,
	useSimulator,
	V1Client,
	waitFor,
	type TestCompany
} from '../testing/fixture';

const env = useSimulator();

const started = (conversationId: string) =>
	waitFor('conversation.started', () =>
		env.receiver.ofType('conversation.started').findLast((webhook) => webhook.event.data.conversationId === conversationId)
	);

/** The `message.created` of a customer's message, and its text as the business decrypts it (contract 6.1, 6.2). */
async function receivedAsBusiness(conversationId: string, messageId: string): Promise<{ event: any; text: string }> {
	const { event } = await waitFor('message.created', () =>
		env.receiver.ofType('message.created').find((webhook) => webhook.event.data.messageId === messageId)
	);
	const conversationKey = openConversationKey(event.data.conversationKey, conversationId, env.company.keyPairs);
	return { event, text: decryptMessage(event.data.encryption, { conversationKey, conversationId, senderType: 'user' }) };
}

describe('redeeming an invitation', () => {
	it('seals K for the company and binds the user key to the link (contract 6.3)', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const { event } = await started(conversation.conversationId);
		expect(event.data.isReinvite).toBe(false);
		expect(event.data.conversationKey.keyVersion).toBe(1);
		const key = openConversationKey(event.data.conversationKey, conversation.conversationId, env.company.keyPairs);
		expect(key).toHaveLength(32);
		verifyInviteBinding(event.data.inviteBinding, {
			inviteSecret: conversation.inviteSecret,
			conversationId: conversation.conversationId,
			userPublicKey: b64uDecode(event.data.userPublicKey),
			wrapForCompany: event.data.conversationKey
		});
		const record = await env.client.get(`/v1/conversations/${conversation.conversationId}`);
		expect(record.body.status).toBe('active');
		expect(record.body.userPublicKey).toBe(event.data.userPublicKey);
	});

	it('sends no binding when the customer typed the short code, and the conversation still starts', async () => {
		const invite = await env.client.post('/v1/invites', {});
		const redeemed = await env.simulator.control('POST', '/_sim/customers/redeem', { shortCode: invite.body.shortCode.toLowerCase() });
		expect(redeemed.status).toBe(201);
		const { event } = await started(invite.body.conversationId);
		expect(event.data).not.toHaveProperty('inviteBinding');
		expect(event.data.userPublicKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
	});

	it("refuses a link whose fingerprint is not the company's key, and leaves the invitation usable", async () => {
		const invite = await env.client.post('/v1/invites', {});
		const otherKey = generateX25519KeyPair().publicKey;
		const wrongLink = buildInviteLink(invite.body.inviteUrl, generateInviteSecret(), otherKey);
		const refused = await env.simulator.control('POST', '/_sim/customers/redeem', { link: wrongLink });
		expect(refused.status).toBe(409);
		expect(refused.body.error.code).toBe('KEY_MISMATCH');
		const rightLink = buildInviteLink(invite.body.inviteUrl, generateInviteSecret(), env.company.keys.publicKey);
		expect((await env.simulator.control('POST', '/_sim/customers/redeem', { link: rightLink })).status).toBe(201);
	});

	it('refuses a second redemption, an expired invitation and a link without its fragment', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const again = await env.simulator.control('POST', '/_sim/customers/redeem', { link: conversation.link });
		expect(again.status).toBe(409);
		const noFragment = await env.simulator.control('POST', '/_sim/customers/redeem', { link: conversation.link.split('#')[0] });
		expect(noFragment.body.error.code).toBe('INVALID_INPUT');

		const shortLived = await env.client.post('/v1/invites', { expiresIn: 60 });
		expect(shortLived.status).toBe(201);
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 61 });
		try {
			const expired = await env.simulator.control('POST', '/_sim/customers/redeem', { shortCode: shortLived.body.shortCode });
			expect(expired.status).toBe(410);
		} finally {
			await env.simulator.control('POST', '/_sim/clock', { offsetSeconds: 0 });
		}
	});
});

describe('messages both ways', () => {
	it('delivers what the customer writes as message.created the business can decrypt as user', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const sent = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, {
			text: 'Hello, my order is late 📦'
		});
		expect(sent.status).toBe(201);
		const { event, text } = await receivedAsBusiness(conversation.conversationId, sent.body.messageId);
		expect(event.data.senderType).toBe('user');
		expect(event.data.contentType).toBe('text');
		expect(text).toBe('Hello, my order is late 📦');
	});

	it('lets the customer read exactly what the business sent, and marks the read as message.read', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const key = await openCompanyKey(env.client, env.company, conversation.conversationId);
		const reply = await env.client.post('/v1/messages', {
			conversationId: conversation.conversationId,
			contentType: 'text',
			encryption: companyEnvelope(key, conversation.conversationId, 'It ships tomorrow — sorry!')
		});
		expect(reply.status).toBe(201);
		const messages = await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}/messages`);
		expect(messages.body).toEqual([
			expect.objectContaining({ messageId: reply.body.messageId, senderType: 'company', text: 'It ships tomorrow — sorry!' })
		]);

		const read = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/read`, {});
		expect(read.body.readUpToMessageId).toBe(reply.body.messageId);
		await waitFor('message.read', () =>
			env.receiver.ofType('message.read').find((webhook) => webhook.event.data.upToMessageId === reply.body.messageId)
		);
	});

	it('shows an envelope the customer cannot open as an error, never as text', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const wrongKey = new Uint8Array(32).fill(7);
		await env.client.post('/v1/messages', {
			conversationId: conversation.conversationId,
			contentType: 'text',
			encryption: companyEnvelope(wrongKey, conversation.conversationId, 'sealed with another key')
		});
		const messages = await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}/messages`);
		expect(messages.body[0]).toMatchObject({ senderType: 'company', error: 'DECRYPT_FAILED' });
		expect(messages.body[0]).not.toHaveProperty('text');
	});
});

describe('attachments both ways', () => {
	const pattern = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 31 + 7) & 255);

	it('sends a customer file the business downloads and decrypts (contract 4.4)', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const file = pattern(150_000);
		const sent = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/attachments`, {
			name: 'receipt.pdf',
			mime: 'application/pdf',
			dataBase64: Buffer.from(file).toString('base64'),
			caption: 'the receipt'
		});
		expect(sent.status).toBe(201);
		const { event, text: metaText } = await receivedAsBusiness(conversation.conversationId, sent.body.messageId);
		expect(event.data.contentType).toBe('attachment');
		const meta = parseReceivedAttachmentMeta(metaText, event.data.attachment.attachmentId);
		expect(meta).toMatchObject({ name: 'receipt.pdf', mime: 'application/pdf', size: file.length, caption: 'the receipt' });

		const record = await env.client.get(`/v1/conversations/${conversation.conversationId}/attachments/${meta.attachmentId}`);
		expect(record.body).toMatchObject({ size: event.data.attachment.size, expiresIn: 300 });
		const download = await fetch(record.body.downloadUrl);
		expect(download.status).toBe(200);
		expect(decryptAttachment(new Uint8Array(await download.arrayBuffer()), meta)).toEqual(file);
	});

	it('takes a customer file of the largest size docs/simulator.md allows, and refuses base64 that is not standard', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const send = (dataBase64: string) =>
			env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/attachments`, {
				name: 'big.bin',
				mime: 'application/octet-stream',
				dataBase64
			});
		const largest = await send(Buffer.from(pattern(26_214_400)).toString('base64'));
		expect(largest.status).toBe(201);
		expect(largest.body.attachment.size).toBeGreaterThan(26_214_400);
		for (const malformed of ['QUJD-_', 'QUJD=', 'QUI', 'QUJ=\n']) {
			const refused = await send(malformed);
			expect(refused.status, malformed).toBe(400);
			expect(refused.body.error.code).toBe('INVALID_REQUEST');
		}
	});

	it('delivers a business file the customer decrypts byte for byte (contract 4.3)', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const key = await openCompanyKey(env.client, env.company, conversation.conversationId);
		const file = pattern(70_000);
		const created = await env.client.post(`/v1/conversations/${conversation.conversationId}/attachments`, { size: file.length + 2 * 16 });
		expect(created.status).toBe(201);
		const upload = created.body;
		const encryption = encryptAttachment(file, { attachmentId: upload.attachmentId });
		const put = await fetch(upload.uploadUrl, {
			method: 'PUT',
			headers: upload.headers,
			body: encryption.ciphertext as Uint8Array<ArrayBuffer>
		});
		expect(put.status).toBe(200);
		const meta = buildAttachmentMeta({
			attachmentId: upload.attachmentId,
			name: 'label.png',
			mime: 'image/png',
			size: file.length,
			encryption,
			width: 10,
			height: 20
		});
		const message = await env.client.post('/v1/messages', {
			conversationId: conversation.conversationId,
			contentType: 'attachment',
			attachment: { attachmentId: upload.attachmentId },
			encryption: companyEnvelope(key, conversation.conversationId, JSON.stringify(meta))
		});
		expect(message.status).toBe(201);
		const messages = await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}/messages`);
		expect(messages.body[0].meta).toEqual({
			attachmentId: upload.attachmentId,
			name: 'label.png',
			mime: 'image/png',
			size: file.length,
			width: 10,
			height: 20
		});
		const bytes = await fetch(`${env.simulator.url}/_sim/customers/${conversation.customerId}/attachments/${upload.attachmentId}`);
		expect(bytes.headers.get('content-disposition')).toContain('label.png');
		expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(file);
	});
});

describe("the customer's bad input", () => {
	it('refuses an invalid file name, mime type or over-long text with INVALID_INPUT, storing nothing', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const path = `/_sim/customers/${conversation.customerId}`;
		const file = { mime: 'text/plain', dataBase64: Buffer.from('x').toString('base64') };
		for (const body of [
			{ ...file, name: '../x' },
			{ ...file, name: 'a\u0001b' },
			{ ...file, name: 'ok.txt', mime: 'Text/Plain' },
			{ ...file, name: 'ok.txt', caption: 'c'.repeat(4001) }
		]) {
			const refused = await env.simulator.control('POST', `${path}/attachments`, body);
			expect([refused.status, refused.body.error.code], JSON.stringify(body).slice(0, 60)).toEqual([400, 'INVALID_INPUT']);
		}
		const tooLong = await env.simulator.control('POST', `${path}/messages`, { text: 'x'.repeat(65_537) });
		expect([tooLong.status, tooLong.body.error.code]).toEqual([400, 'INVALID_INPUT']);
		const notBase64 = await env.simulator.control('POST', `${path}/attachments`, { ...file, name: 'ok.txt', dataBase64: 'not base64!' });
		expect([notBase64.status, notBase64.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
		expect((await env.simulator.control('GET', `${path}/messages`)).body).toEqual([]);
		expect((await env.client.get(`/v1/conversations/${conversation.conversationId}/messages`)).body.data).toEqual([]);
	});
});

describe('changing device: re-invitation and rewrap (contract 6.4)', () => {
	it('moves to awaiting_key, then hands the whole history to the new key after the rewrap', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const key = await openCompanyKey(env.client, env.company, conversation.conversationId);
		await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'before the new phone' });
		await env.client.post('/v1/messages', {
			conversationId: conversation.conversationId,
			contentType: 'text',
			encryption: companyEnvelope(key, conversation.conversationId, 'answer before the new phone')
		});

		const reinvite = await env.client.post(`/v1/conversations/${conversation.conversationId}/reinvite`, {});
		expect(reinvite.status).toBe(201);
		expect(reinvite.body.conversationId).toBe(conversation.conversationId);
		const secret = generateInviteSecret();
		const link = buildInviteLink(reinvite.body.inviteUrl, secret, env.company.keys.publicKey);
		const changed = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/change-device`, { link });
		expect(changed.status).toBe(200);
		expect(changed.body.status).toBe('awaiting_key');

		const restart = await waitFor('re-invitation event', () =>
			env.receiver
				.ofType('conversation.started')
				.find((webhook) => webhook.event.data.conversationId === conversation.conversationId && webhook.event.data.isReinvite)
		);
		const { data } = restart.event;
		expect(data.userPublicKey).toBe(changed.body.publicKey);
		verifyInviteBinding(data.inviteBinding, {
			inviteSecret: secret,
			conversationId: conversation.conversationId,
			userPublicKey: b64uDecode(data.userPublicKey),
			wrapForCompany: data.conversationKey
		});

		const waiting = await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}/messages`);
		expect(waiting.body.map((message: any) => message.error)).toEqual(['CONVERSATION_AWAITING_KEY', 'CONVERSATION_AWAITING_KEY']);
		const blocked = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'hello?' });
		expect(blocked.body.error.code).toBe('CONVERSATION_AWAITING_KEY');
		const companyBlocked = await env.client.post('/v1/messages', {
			conversationId: conversation.conversationId,
			contentType: 'text',
			encryption: companyEnvelope(key, conversation.conversationId, 'too early')
		});
		expect([companyBlocked.status, companyBlocked.body.error.code]).toEqual([409, 'CONVERSATION_AWAITING_KEY']);

		const reopened = openConversationKey(data.conversationKey, conversation.conversationId, env.company.keyPairs);
		const wrapForUser = sealConversationKey({
			conversationKey: reopened,
			conversationId: conversation.conversationId,
			keyVersion: data.conversationKey.keyVersion,
			recipientPublicKey: b64uDecode(data.userPublicKey)
		});
		const rewrap = await env.client.post(`/v1/conversations/${conversation.conversationId}/rewrap`, { wrapForUser });
		expect(rewrap.status).toBe(200);
		expect(rewrap.body.status).toBe('active');

		const history = await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}/messages`);
		expect(history.body.map((message: any) => message.text)).toEqual(['before the new phone', 'answer before the new phone']);
		expect((await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'back' })).status).toBe(201);
	});

	it('refuses a change of device with a first invitation or another conversation’s re-invitation', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const other = await env.client.post('/v1/invites', {});
		const refused = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/change-device`, {
			shortCode: other.body.shortCode
		});
		expect(refused.status).toBe(409);
		expect((await env.client.get(`/v1/conversations/${conversation.conversationId}`)).body.status).toBe('active');
	});
});

describe('agent wraps only for a verified roster (contract 6.7)', () => {
	let rosterCompany: TestCompany;
	let rosterClient: V1Client;
	const agents: { agentKeyId: string; keys: X25519KeyPair }[] = [];

	const rosterOf = (version: number, members: typeof agents, signingKey = rosterCompany.signing.secretKey) => {
		const body = {
			rosterVersion: version,
			issuedAt: isoSeconds(new Date()),
			agents: members.map((agent) => ({ agentKeyId: agent.agentKeyId, publicKey: b64uEncode(agent.keys.publicKey) }))
		};
		return { ...body, signature: signRoster({ companyId: rosterCompany.companyId, ...body }, signingKey) };
	};

	const agentWrapsOf = async (conversationId: string) => {
		const { event } = await waitFor('conversation.started', () =>
			env.receiver.ofType('conversation.started').find((webhook) => webhook.event.data.conversationId === conversationId)
		);
		return event.data.agentWraps as any[];
	};

	beforeAll(async () => {
		rosterCompany = await registerCompany(env.simulator, env.receiver.url);
		rosterClient = new V1Client(env.simulator.url, rosterCompany);
		for (const name of ['agk_alice0001', 'agk_bob000002']) agents.push({ agentKeyId: name, keys: generateX25519KeyPair() });
	});

	it('seals K for every agent of the latest roster, and each agent opens its own wrap', async () => {
		expect((await rosterClient.post('/v1/roster', rosterOf(1, agents.slice(0, 1)))).status).toBe(201);
		expect((await rosterClient.post('/v1/roster', rosterOf(2, agents))).status).toBe(201);
		const conversation = await startConversation(env.simulator, rosterClient, rosterCompany);
		const wraps = await agentWrapsOf(conversation.conversationId);
		expect(wraps.map((wrap) => [wrap.agentKeyId, wrap.rosterVersion])).toEqual([
			['agk_alice0001', 2],
			['agk_bob000002', 2]
		]);
		const companyKey = await openCompanyKey(rosterClient, rosterCompany, conversation.conversationId);
		for (const agent of agents) {
			const wrap = wraps.find((item) => item.agentKeyId === agent.agentKeyId).wrap;
			expect(openConversationKey(wrap, conversation.conversationId, [agent.keys])).toEqual(companyKey);
		}
		const stored = await rosterClient.get(`/v1/conversations/${conversation.conversationId}/agent-wraps`);
		expect(stored.body.wraps).toHaveLength(2);
		const view = await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}`);
		expect(view.body).toMatchObject({ sealedForRosterVersion: 2, rosterRefusal: null });
	});

	/** Serves `roster` to the app (a compromised service), redeems, and returns the wraps and the app's reason. */
	async function redeemWhileServing(roster: ReturnType<typeof rosterOf>): Promise<{ wraps: any[]; refusal: string | null }> {
		await env.simulator.control('POST', `/_sim/companies/${rosterCompany.companyId}/served-roster`, roster);
		try {
			const conversation = await startConversation(env.simulator, rosterClient, rosterCompany);
			const view = await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}`);
			return { wraps: await agentWrapsOf(conversation.conversationId), refusal: view.body.rosterRefusal };
		} finally {
			await env.simulator.control('DELETE', `/_sim/companies/${rosterCompany.companyId}/served-roster`);
		}
	}

	it('seals for no agent when the served roster does not verify with the pinned signing key', async () => {
		const mallory = { agentKeyId: 'agk_mallory03', keys: generateX25519KeyPair() };
		const result = await redeemWhileServing(rosterOf(3, [...agents, mallory], generateEd25519KeyPair().secretKey));
		expect(result.wraps).toEqual([]);
		expect(result.refusal).toContain('SIGNATURE_INVALID');
	});

	it('seals for no agent when the served roster is older than one the app already saw', async () => {
		const result = await redeemWhileServing(rosterOf(1, agents.slice(0, 1)));
		expect(result.wraps).toEqual([]);
		expect(result.refusal).toContain('older than version 2');
	});
});

describe('deleting the account', () => {
	it('emits conversation.updated and answers 410 USER_DELETED to the business and the customer', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const key = await openCompanyKey(env.client, env.company, conversation.conversationId);
		expect((await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/delete`, {})).status).toBe(200);
		await waitFor('conversation.updated', () =>
			env.receiver
				.ofType('conversation.updated')
				.find((webhook) => webhook.event.data.conversationId === conversation.conversationId && webhook.event.data.userDeleted)
		);
		const reply = await env.client.post('/v1/messages', {
			conversationId: conversation.conversationId,
			contentType: 'text',
			encryption: companyEnvelope(key, conversation.conversationId, 'are you there?')
		});
		expect([reply.status, reply.body.error.code]).toEqual([410, 'USER_DELETED']);
		const customer = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'ghost' });
		expect([customer.status, customer.body.error.code]).toEqual([410, 'USER_DELETED']);
	});
});
