import { beforeAll, describe, expect, it } from 'vitest';
import { b64uEncode, buildInviteLink, generateInviteSecret, sealConversationKey } from '../../lib/crypto/index';
import { expectError, openCompanyKey, registerCompany, startConversation, useSimulator, V1Client } from '../testing/fixture';

const env = useSimulator();

describe('invitations (contract 4, 6.3; contract-gaps §6)', () => {
	it('creates a pending conversation and an invitation without a fragment', async () => {
		const invite = await env.client.post('/v1/invites', {});
		expect(invite.status).toBe(201);
		expect(invite.body).toEqual({
			inviteId: expect.stringMatching(/^inv_[A-Za-z0-9_-]{16}$/),
			conversationId: expect.stringMatching(/^conv_[A-Za-z0-9_-]{16}$/),
			inviteUrl: `${env.simulator.url}/invite/${invite.body.inviteId}`,
			shortCode: expect.stringMatching(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/),
			expiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
		});
		const record = await env.client.get(`/v1/conversations/${invite.body.conversationId}`);
		expect(record.body).toMatchObject({ status: 'pending', keyVersion: null, wrapForCompany: null, userPublicKey: null, startedAt: null });
	});

	it('takes expiresIn from 60 to 2,592,000 seconds (default 7 days)', async () => {
		const now = Date.now();
		const defaulted = await env.client.post('/v1/invites', {});
		expect(Date.parse(defaulted.body.expiresAt) - now).toBeGreaterThan(604_790_000);
		expect((await env.client.post('/v1/invites', { expiresIn: 60 })).status).toBe(201);
		for (const expiresIn of [59, 2_592_001, 3600.5, '3600'])
			expectError(await env.client.post('/v1/invites', { expiresIn }), 400, 'INVALID_REQUEST');
	});

	it('re-invites a started conversation only, replacing earlier unused re-invitations', async () => {
		const pending = await env.client.post('/v1/invites', {});
		expectError(await env.client.post(`/v1/conversations/${pending.body.conversationId}/reinvite`, {}), 409, 'CONVERSATION_PENDING');
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const first = await env.client.post(`/v1/conversations/${conversation.conversationId}/reinvite`, {});
		const second = await env.client.post(`/v1/conversations/${conversation.conversationId}/reinvite`, { expiresIn: 600 });
		expect(second.status).toBe(201);
		expect(second.body.conversationId).toBe(conversation.conversationId);
		const replaced = await env.simulator.control('POST', '/_sim/customers/redeem', {
			link: buildInviteLink(first.body.inviteUrl, generateInviteSecret(), env.company.keys.publicKey)
		});
		expect(replaced.status).toBe(410);
		expect((await env.client.get(`/v1/conversations/${conversation.conversationId}`)).body.status).toBe('active');
	});
});

describe('list and read (contract-gaps §4)', () => {
	let listing: V1Client;
	const created: string[] = [];

	beforeAll(async () => {
		listing = new V1Client(env.simulator.url, await registerCompany(env.simulator, env.receiver.url));
		// A second apart, so the order does not depend on ids drawn within one millisecond.
		for (let i = 0; i < 5; i++) {
			created.push((await listing.post('/v1/invites', {})).body.conversationId);
			await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 1 });
		}
		await env.simulator.control('POST', '/_sim/clock', { offsetSeconds: 0 });
	});

	it('pages newest first with limit and an opaque cursor', async () => {
		const first = await listing.get('/v1/conversations?limit=2');
		expect(first.body.data.map((item: { conversationId: string }) => item.conversationId)).toEqual([created[4], created[3]]);
		const second = await listing.get(`/v1/conversations?limit=2&cursor=${first.body.nextCursor}`);
		expect(second.body.data.map((item: { conversationId: string }) => item.conversationId)).toEqual([created[2], created[1]]);
		const third = await listing.get(`/v1/conversations?limit=2&cursor=${second.body.nextCursor}`);
		expect(third.body).toEqual({ data: [expect.objectContaining({ conversationId: created[0] })], nextCursor: null });
	});

	it('filters by status', async () => {
		expect((await listing.get('/v1/conversations?status=pending')).body.data).toHaveLength(5);
		expect((await listing.get('/v1/conversations?status=active')).body.data).toHaveLength(0);
	});

	it('refuses an unknown status, a limit outside 1…200, an unknown or repeated parameter and a forged cursor', async () => {
		for (const query of [
			'status=open',
			'limit=0',
			'limit=201',
			'limit=abc',
			'limt=5',
			'status=active&status=closed',
			'cursor=bm90LWEtY3Vyc29y'
		]) {
			expectError(await listing.get(`/v1/conversations?${query}`), 400, 'INVALID_REQUEST');
		}
		expect((await listing.get('/v1/conversations?limit=200')).status).toBe(200);
	});

	it("answers 404 NOT_FOUND for another company's conversation", async () => {
		expectError(await env.client.get(`/v1/conversations/${created[0]}`), 404, 'NOT_FOUND');
		expectError(await env.client.post(`/v1/conversations/${created[0]}/close`, {}), 404, 'NOT_FOUND');
	});
});

describe('rewrap (contract 6.4; contract-gaps §6)', () => {
	it('refuses a conversation that is not awaiting_key, and wraps of the wrong shape or version', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const key = await openCompanyKey(env.client, env.company, conversation.conversationId);
		const wrap = sealConversationKey({
			conversationKey: key,
			conversationId: conversation.conversationId,
			keyVersion: 1,
			recipientPublicKey: env.company.keys.publicKey
		});
		const path = `/v1/conversations/${conversation.conversationId}/rewrap`;
		expectError(await env.client.post(path, { wrapForUser: wrap }), 409, 'CONVERSATION_NOT_AWAITING_KEY');

		const reinvite = await env.client.post(`/v1/conversations/${conversation.conversationId}/reinvite`, {});
		await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/change-device`, { shortCode: reinvite.body.shortCode });
		expectError(await env.client.post(path, {}), 400, 'INVALID_REQUEST');
		expectError(await env.client.post(path, { wrapForUser: 'x' }), 400, 'INVALID_WRAP');
		expectError(await env.client.post(path, { wrapForUser: { ...wrap, keyVersion: 0 } }), 400, 'INVALID_WRAP');
		expectError(await env.client.post(path, { wrapForUser: { ...wrap, sealed: wrap.sealed.slice(0, -4) } }), 400, 'INVALID_WRAP');
		expectError(await env.client.post(path, { wrapForUser: { ...wrap, sealed: `${wrap.sealed}=` } }), 400, 'INVALID_WRAP');
		expectError(await env.client.post(path, { wrapForUser: { ...wrap, sealed: b64uEncode(new Uint8Array(200)) } }), 400, 'INVALID_WRAP');
		expectError(await env.client.post(path, { wrapForUser: { ...wrap, keyVersion: 2 } }), 409, 'KEY_VERSION_MISMATCH');
		expect((await env.client.get(`/v1/conversations/${conversation.conversationId}`)).body.status).toBe('awaiting_key');
		expect((await env.client.post(path, { wrapForUser: wrap })).body.status).toBe('active');
	});
});

describe('read, typing, close (contract-gaps §5)', () => {
	it('moves the read marker forward only', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const first = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'one' });
		const second = await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'two' });
		const path = `/v1/conversations/${conversation.conversationId}/read`;
		expect((await env.client.post(path, { upToMessageId: second.body.messageId })).body).toEqual({
			conversationId: conversation.conversationId,
			readUpToMessageId: second.body.messageId
		});
		expect((await env.client.post(path, { upToMessageId: first.body.messageId })).body.readUpToMessageId).toBe(second.body.messageId);
		expectError(await env.client.post(path, { upToMessageId: 'msg_unknown' }), 404, 'NOT_FOUND');
		expectError(await env.client.post(path, {}), 400, 'INVALID_REQUEST');
		const seen = await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}/messages`);
		expect(seen.body.map((message: { readByCompany: boolean }) => message.readByCompany)).toEqual([true, true]);
	});

	it('shows typing to the customer for 5 s', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const typing = await env.client.post(`/v1/conversations/${conversation.conversationId}/typing`, {});
		expect(typing.status).toBe(200);
		expect(Date.parse(typing.body.typingUntil) - Date.now()).toBeLessThanOrEqual(5000);
		expect((await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}`)).body.companyTyping).toBe(true);
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 6 });
		try {
			expect((await env.simulator.control('GET', `/_sim/customers/${conversation.customerId}`)).body.companyTyping).toBe(false);
		} finally {
			await env.simulator.control('POST', '/_sim/clock', { offsetSeconds: 0 });
		}
		const pending = await env.client.post('/v1/invites', {});
		expectError(await env.client.post(`/v1/conversations/${pending.body.conversationId}/typing`, {}), 409, 'CONVERSATION_PENDING');
	});

	it('closes, stays closed when closed again, and reopens on a message', async () => {
		const conversation = await startConversation(env.simulator, env.client, env.company);
		const path = `/v1/conversations/${conversation.conversationId}/close`;
		const closed = await env.client.post(path, {});
		expect(closed.body).toMatchObject({ status: 'closed', closedAt: expect.any(String) });
		expect((await env.client.post(path, {})).body).toEqual(closed.body);
		await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'one more thing' });
		expect((await env.client.get(`/v1/conversations/${conversation.conversationId}`)).body).toMatchObject({
			status: 'active',
			closedAt: null
		});
		const pending = await env.client.post('/v1/invites', {});
		expectError(await env.client.post(`/v1/conversations/${pending.body.conversationId}/close`, {}), 409, 'CONVERSATION_PENDING');
	});
});
