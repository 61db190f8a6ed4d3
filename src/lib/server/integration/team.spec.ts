import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { encryptMessage, initCrypto, newClientMessageId, openConversationKey } from '../../crypto/index';
import { loadCompanyKeys } from '../keys/files';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const SECOND_ADMIN = { username: 'alan', displayName: 'Alan Admin', password: 'alan password 123', role: 'admin' };

describe.each(BACKENDS)("the team's conversations on %s (docs/inbox-api.md §4 “Assignment”)", (backend) => {
	const harness = useStack(backend);

	it('assigns to oneself, to someone with access, to nobody; each change is live and in the activity; the first reply can assign', async () => {
		await initCrypto();
		const grace = await harness.login(ADMIN);
		await grace.post('/api/admin/accounts', SECOND_ADMIN);
		const alan = await InboxClient.loggedIn(harness.stack().inbox.url, SECOND_ADMIN.username, SECOND_ADMIN.password);
		const ada = await harness.login(); // an agent without a key: no access to any conversation
		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		const accountOf = async (client: InboxClient) => (await client.get('/api/session')).body.account.accountId;
		const [graceId, alanId, adaId] = [await accountOf(grace), await accountOf(alan), await accountOf(ada)];

		const team = (await ada.get('/api/team')).body.data;
		expect(team).toEqual([
			{ accountId: adaId, displayName: 'Ada Agent', role: 'agent' },
			{ accountId: alanId, displayName: 'Alan Admin', role: 'admin' },
			{ accountId: graceId, displayName: 'Grace Admin', role: 'admin' }
		]);

		const events = await alan.events();
		await events.waitFor((event) => event.event === 'ready');
		const mine = await grace.put(`/api/conversations/${id}/assignee`, { accountId: graceId });
		expect(mine.body.assignee).toEqual({ accountId: graceId, displayName: 'Grace Admin' });
		const seen = await events.waitFor(
			(event) => event.event === 'conversation.changed' && event.data.conversation.conversationId === id && event.data.conversation.assignee
		);
		expect(seen.data.conversation.assignee).toEqual({ accountId: graceId, displayName: 'Grace Admin' });
		// the same assignee again changes nothing
		expect((await grace.put(`/api/conversations/${id}/assignee`, { accountId: graceId })).body.activity).toHaveLength(1);
		await grace.put(`/api/conversations/${id}/assignee`, { accountId: alanId });
		const unassigned = await alan.put(`/api/conversations/${id}/assignee`, { accountId: null });
		expect(unassigned.body.assignee).toBeNull();
		expect(
			unassigned.body.activity.map((line: { kind: string; actorName: string; details: object }) => [
				line.kind,
				line.actorName,
				line.details
			])
		).toEqual([
			['assigned', 'Grace Admin', { assigneeName: 'Grace Admin' }],
			['assigned', 'Grace Admin', { assigneeName: 'Alan Admin' }],
			['unassigned', 'Alan Admin', { assigneeName: 'Alan Admin' }]
		]);
		events.close();

		const refused = await ada.put(`/api/conversations/${id}/assignee`, { accountId: adaId });
		expect([refused.status, refused.body.error.code]).toEqual([403, 'NO_CONVERSATION_ACCESS']);
		const noAccess = await grace.put(`/api/conversations/${id}/assignee`, { accountId: adaId });
		expect([noAccess.status, noAccess.body.error.code]).toEqual([409, 'STATE_CONFLICT']);
		for (const body of [{}, { accountId: 5 }, { accountId: '' }]) {
			expect((await grace.put(`/api/conversations/${id}/assignee`, body)).body.error.code).toBe('INVALID_REQUEST');
		}
		expect((await grace.put(`/api/conversations/${id}/assignee`, { accountId: 'acc_nobody' })).body.error.code).toBe('STATE_CONFLICT');
		expect((await grace.put('/api/conversations/conv_unknown/assignee', { accountId: null })).status).toBe(404);
		expect((await grace.get(`/api/conversations/${id}`)).body.assignee).toBeNull();

		// the team's setting: the first reply to an unassigned conversation assigns it to its sender
		expect((await ada.patch('/api/admin/settings', { assignOnFirstReply: true })).body.error.code).toBe('FORBIDDEN');
		expect((await grace.patch('/api/admin/settings', { assignOnFirstReply: 'yes' })).body.error.code).toBe('INVALID_REQUEST');
		expect((await grace.patch('/api/admin/settings', { assignOnFirstReply: true })).body).toMatchObject({ assignOnFirstReply: true });
		const keys = await loadCompanyKeys(join(harness.stack().dataDir, 'keys'));
		const conversationKey = openConversationKey((await grace.get(`/api/v1/conversations/${id}`)).body.wrapForCompany, id, [keys.current]);
		const reply = (text: string) => ({
			conversationId: id,
			contentType: 'text',
			encryption: encryptMessage({
				conversationKey,
				conversationId: id,
				senderType: 'company',
				clientMessageId: newClientMessageId(),
				keyVersion: 1,
				text
			})
		});
		expect((await alan.post('/api/v1/messages', reply('Alan answers first.'))).status).toBe(201);
		expect((await grace.post('/api/v1/messages', reply('Grace answers second.'))).status).toBe(201);
		const assigned = (await grace.get(`/api/conversations/${id}`)).body;
		expect(assigned.assignee).toEqual({ accountId: alanId, displayName: 'Alan Admin' });
		expect(assigned.activity.at(-1)).toMatchObject({
			kind: 'assigned',
			actorName: 'Alan Admin',
			details: { assigneeName: 'Alan Admin', automatic: true }
		});
		await grace.patch('/api/admin/settings', { assignOnFirstReply: false });
	});
});
