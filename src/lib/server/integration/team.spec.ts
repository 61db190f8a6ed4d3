import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { databaseContents } from '$test-support/database-contents';
import {
	decryptPrivateRecord,
	encryptMessage,
	encryptPrivateRecord,
	initCrypto,
	newClientMessageId,
	newRecordId,
	openConversationKey,
	sealPendingProfile
} from '../../crypto/index';
import { loadCompanyKeys } from '../keys/files';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const SECOND_ADMIN = { username: 'alan', displayName: 'Alan Admin', password: 'alan password 123', role: 'admin' };

describe.each(BACKENDS)("the team's conversations on %s (docs/inbox-api.md §4 “Assignment”, “Teams”)", (backend) => {
	const harness = useStack(backend);
	/** A second admin (made once, 409 after), signed in. */
	const loginAlan = async (grace: InboxClient) => {
		await grace.post('/api/admin/accounts', SECOND_ADMIN);
		return InboxClient.loggedIn(harness.stack().inbox.url, SECOND_ADMIN.username, SECOND_ADMIN.password);
	};
	const accountOf = async (client: InboxClient) => (await client.get('/api/session')).body.account.accountId as string;
	const day = (offset: number) => new Date(Date.now() + offset * 24 * 3600_000).toISOString().slice(0, 10);

	it('assigns to oneself, to someone with access, to nobody; each change is live and in the activity; the first reply can assign', async () => {
		await initCrypto();
		const grace = await harness.login(ADMIN);
		const alan = await loginAlan(grace);
		const ada = await harness.login(); // an agent without a key: no access to any conversation
		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		const [graceId, alanId, adaId] = [await accountOf(grace), await accountOf(alan), await accountOf(ada)];

		const team = (await ada.get('/api/team')).body.data;
		// nobody has a tab open yet: everyone is offline (§4 "Availability")
		expect(team).toEqual([
			{ accountId: adaId, displayName: 'Ada Agent', role: 'agent', availability: 'offline' },
			{ accountId: alanId, displayName: 'Alan Admin', role: 'admin', availability: 'offline' },
			{ accountId: graceId, displayName: 'Grace Admin', role: 'admin', availability: 'offline' }
		]);

		const events = await alan.events();
		await events.waitFor((event) => event.event === 'ready');
		const availabilityOf = async (accountId: string) =>
			(await ada.get('/api/team')).body.data.find((member: { accountId: string }) => member.accountId === accountId).availability;
		expect(await availabilityOf(alanId)).toBe('online');
		// away by choice, then back; the change reaches the open inboxes
		expect((await alan.put('/api/team/availability', { away: true })).body).toEqual({ availability: 'away' });
		await events.waitFor((event) => event.event === 'team.changed');
		expect(await availabilityOf(alanId)).toBe('away');
		expect((await alan.put('/api/team/availability', { away: false })).body).toEqual({ availability: 'online' });
		for (const body of [{}, { away: 'yes' }, { away: true, mood: 'fine' }])
			expect((await alan.put('/api/team/availability', body)).body.error.code).toBe('INVALID_REQUEST');
		// an account outside the roster has no availability to set (it gets no work)
		expect((await ada.put('/api/team/availability', { away: true })).body.error.code).toBe('NOT_IN_ROSTER');
		expect(await availabilityOf(alanId)).toBe('online');
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
		expect((await grace.put(`/api/conversations/${id}/assignee`, { accountId: 'acc_nobody0000000000' })).body.error.code).toBe(
			'STATE_CONFLICT'
		);
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
			details: { assigneeName: 'Alan Admin', automatic: true, rule: 'first_reply' }
		});
		await grace.patch('/api/admin/settings', { assignOnFirstReply: false });
	});

	it('keeps private notes as ciphertext only: every agent with access reads them live, nobody else, and the database holds no plaintext', async () => {
		await initCrypto();
		const grace = await harness.login(ADMIN);
		const alan = await loginAlan(grace);
		const outsider = await harness.loginOutsider();
		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		const graceId = (await grace.get('/api/session')).body.account.accountId;
		const keys = await loadCompanyKeys(join(harness.stack().dataDir, 'keys'));
		const conversationKey = openConversationKey((await grace.get(`/api/v1/conversations/${id}`)).body.wrapForCompany, id, [keys.current]);
		const secret = 'Customer is Lamp Vendor Ltd, VAT DE811907980, wants refund to IBAN DE89370400440532013000';
		const envelope = encryptPrivateRecord({
			kind: 'note',
			conversationId: id,
			authorId: graceId,
			recordId: newRecordId('note'),
			keyVersion: 1,
			text: secret,
			conversationKey
		});

		const events = await alan.events();
		await events.waitFor((event) => event.event === 'ready');
		const posted = await grace.post(`/api/conversations/${id}/notes`, { envelope });
		expect(posted.status).toBe(201);
		expect(posted.body).toMatchObject({
			noteId: envelope.recordId,
			conversationId: id,
			authorId: graceId,
			authorName: 'Grace Admin',
			envelope
		});
		expect((await grace.post(`/api/conversations/${id}/notes`, { envelope })).status).toBe(200);
		const live = await events.waitFor((event) => event.event === 'note.created' && event.data.note.noteId === envelope.recordId);
		events.close();
		const listed = (await alan.get(`/api/conversations/${id}/notes`)).body.data;
		expect(listed).toEqual([posted.body]);
		for (const note of [live.data.note, listed[0]]) {
			expect(decryptPrivateRecord(note.envelope, { kind: 'note', conversationId: id, authorId: note.authorId, conversationKey })).toBe(
				secret
			);
		}

		// nobody without access: not an agent whose key holds no wrap of it
		expect((await outsider.get(`/api/conversations/${id}/notes`)).body.error.code).toBe('NO_CONVERSATION_ACCESS');
		expect(
			(await outsider.post(`/api/conversations/${id}/notes`, { envelope: { ...envelope, recordId: newRecordId('note') } })).body.error.code
		).toBe('NO_CONVERSATION_ACCESS');
		// only in1 envelopes; a taken record id with other content is refused
		for (const bad of [{}, { envelope: { ...envelope, scheme: 'sc1' } }, { envelope: { ...envelope, ciphertext: 'AAAA' } }]) {
			expect((await grace.post(`/api/conversations/${id}/notes`, bad)).body.error.code).toBe('INVALID_REQUEST');
		}
		const other = encryptPrivateRecord({
			kind: 'note',
			conversationId: id,
			authorId: graceId,
			recordId: envelope.recordId,
			keyVersion: 1,
			text: 'other',
			conversationKey
		});
		expect((await grace.post(`/api/conversations/${id}/notes`, { envelope: other })).body.error.code).toBe('ALREADY_EXISTS');

		const stored = await databaseContents(harness.stack());
		expect(stored).toContain(envelope.recordId); // the note is there, as ciphertext
		for (const word of ['Lamp Vendor', 'DE811907980', 'DE89370400440532013000', 'refund to IBAN']) expect(stored).not.toContain(word);
	});

	it("keeps the customer's profile as ciphertext, saved whole, without two agents overwriting each other", async () => {
		await initCrypto();
		const grace = await harness.login(ADMIN);
		const alan = await loginAlan(grace);
		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		expect((await grace.get(`/api/conversations/${id}`)).body.profile).toBeNull();
		const keys = await loadCompanyKeys(join(harness.stack().dataDir, 'keys'));
		const conversationKey = openConversationKey((await grace.get(`/api/v1/conversations/${id}`)).body.wrapForCompany, id, [keys.current]);
		const profile = async (client: InboxClient, text: string) =>
			encryptPrivateRecord({
				kind: 'profile',
				conversationId: id,
				authorId: await accountOf(client),
				recordId: newRecordId('profile'),
				keyVersion: 1,
				text,
				conversationKey
			});
		const first = JSON.stringify({ name: 'Zoë Quartermaine', notes: 'Prefers email' });
		const saved = await grace.put(`/api/conversations/${id}/profile`, { envelope: await profile(grace, first), version: 0 });
		expect(saved.status).toBe(200);
		expect(saved.body.profile).toMatchObject({ authorName: 'Grace Admin', version: 1 });
		const seenByAlan = (await alan.get(`/api/conversations/${id}`)).body.profile;
		expect(
			decryptPrivateRecord(seenByAlan.envelope, { kind: 'profile', conversationId: id, authorId: seenByAlan.authorId, conversationKey })
		).toBe(first);

		// Alan edited version 1 too: whoever saves second is told to reload
		const second = JSON.stringify({ name: 'Zoë Quartermaine', notes: 'Prefers email; VIP since 2019' });
		expect(
			(await alan.put(`/api/conversations/${id}/profile`, { envelope: await profile(alan, second), version: 1 })).body.profile.version
		).toBe(2);
		const stale = await grace.put(`/api/conversations/${id}/profile`, { envelope: await profile(grace, first), version: 1 });
		expect([stale.status, stale.body.error.code]).toEqual([409, 'STATE_CONFLICT']);
		for (const bad of [{ envelope: await profile(grace, first) }, { envelope: await profile(grace, first), version: -1 }, { version: 2 }]) {
			expect((await grace.put(`/api/conversations/${id}/profile`, bad)).body.error.code).toBe('INVALID_REQUEST');
		}
		const outsider = await harness.loginOutsider();
		expect(
			(await outsider.put(`/api/conversations/${id}/profile`, { envelope: await profile(outsider, first), version: 2 })).body.error.code
		).toBe('NO_CONVERSATION_ACCESS');

		const stored = await databaseContents(harness.stack());
		for (const word of ['Quartermaine', 'Prefers email', 'VIP since']) expect(stored).not.toContain(word);
	});

	it('resolves, reopens and snoozes; a customer who writes again opens the conversation, with a line saying so', async () => {
		const grace = await harness.login(ADMIN);
		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		const state = (body: object) => grace.put(`/api/conversations/${id}/state`, body);

		expect((await state({ state: 'resolved' })).body).toMatchObject({ teamState: 'resolved', snoozedUntil: null });
		await customer.say('One more question');
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.teamState, { timeout: 20_000 }).toBe('open');
		const until = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
		expect((await state({ state: 'snoozed', snoozedUntil: until })).body).toMatchObject({ teamState: 'snoozed', snoozedUntil: until });
		const reopened = await state({ state: 'open' });
		expect(reopened.body.teamState).toBe('open');
		expect(
			reopened.body.activity.map((line: { kind: string; actorName: string | null; details: object }) => [
				line.kind,
				line.actorName,
				line.details
			])
		).toEqual([
			['resolved', 'Grace Admin', {}],
			['reopened', null, { reason: 'customer_message', was: 'resolved' }],
			['snoozed', 'Grace Admin', { until }],
			['reopened', 'Grace Admin', {}]
		]);
		expect((await state({ state: 'open' })).body.activity).toHaveLength(4);
		for (const bad of [{ state: 'done' }, { state: 'snoozed', snoozedUntil: '2020-01-01T00:00:00Z' }]) {
			expect((await state(bad)).body.error.code).toBe('INVALID_REQUEST');
		}
		const outsider = await harness.loginOutsider();
		expect((await outsider.put(`/api/conversations/${id}/state`, { state: 'resolved' })).body.error.code).toBe('NO_CONVERSATION_ACCESS');
	});

	it('labels: admins manage them, anyone with access sets them on a conversation, and every inbox hears of it', async () => {
		const grace = await harness.login(ADMIN);
		const ada = await harness.loginInRoster();
		const outsider = await harness.loginOutsider();
		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');

		const events = await ada.events();
		await events.waitFor((event) => event.event === 'ready');
		const vip = await grace.post('/api/admin/labels', { name: 'VIP', color: 'purple' });
		expect(vip.status).toBe(201);
		await events.waitFor((event) => event.event === 'labels.changed');
		const refund = (await grace.post('/api/admin/labels', { name: 'Refund', color: 'orange' })).body;
		expect((await ada.get('/api/labels')).body.data.map((label: { name: string }) => label.name)).toEqual(['Refund', 'VIP']);
		expect((await ada.post('/api/admin/labels', { name: 'Mine', color: 'red' })).body.error.code).toBe('FORBIDDEN');
		expect((await grace.post('/api/admin/labels', { name: 'vip2', color: 'url(javascript:1)' })).body.error.code).toBe('INVALID_REQUEST');
		expect((await grace.post('/api/admin/labels', { name: 'VIP', color: 'red' })).body.error.code).toBe('ALREADY_EXISTS');

		const labelled = await grace.put(`/api/conversations/${id}/labels`, { labelIds: [vip.body.labelId, refund.labelId, vip.body.labelId] });
		expect(labelled.body.labels).toEqual([vip.body.labelId, refund.labelId].sort());
		const seen = await events.waitFor(
			(event) =>
				event.event === 'conversation.changed' &&
				event.data.conversation.conversationId === id &&
				event.data.conversation.labels.length === 2
		);
		expect(seen.data.conversation.labels).toHaveLength(2);
		expect((await grace.put(`/api/conversations/${id}/labels`, { labelIds: ['lbl_nope'] })).body.error.code).toBe('INVALID_REQUEST');
		expect((await outsider.put(`/api/conversations/${id}/labels`, { labelIds: [] })).body.error.code).toBe('NO_CONVERSATION_ACCESS');
		expect((await outsider.get('/api/labels')).body.error.code).toBe('NOT_IN_ROSTER');

		expect((await grace.patch(`/api/admin/labels/${refund.labelId}`, { name: 'Refunds', color: 'red' })).status).toBe(200);
		expect((await grace.request('DELETE', `/api/admin/labels/${vip.body.labelId}`)).status).toBe(204);
		expect((await grace.get(`/api/conversations/${id}`)).body.labels).toEqual([refund.labelId]);
		expect((await ada.get('/api/labels')).body.data).toEqual([{ labelId: refund.labelId, name: 'Refunds', color: 'red' }]);
		expect((await grace.request('DELETE', `/api/admin/labels/${vip.body.labelId}`)).status).toBe(404);
		events.close();
	});

	it("canned replies: the team's are made by admins, everyone keeps their own, nobody sees another's", async () => {
		const grace = await harness.login(ADMIN);
		const ada = await harness.loginInRoster();
		const alan = await loginAlan(grace);
		const team = await grace.post('/api/canned-replies', {
			scope: 'team',
			shortcut: 'thanks',
			body: 'Thank you, {{customer.name}}! — {{agent.name}}'
		});
		expect(team.status).toBe(201);
		expect((await ada.post('/api/canned-replies', { scope: 'team', shortcut: 'hack', body: 'x' })).body.error.code).toBe('FORBIDDEN');
		const own = await ada.post('/api/canned-replies', { scope: 'personal', shortcut: 'thanks', body: 'Cheers!' });
		expect(own.status).toBe(201);
		expect((await ada.post('/api/canned-replies', { scope: 'personal', shortcut: 'thanks', body: 'again' })).body.error.code).toBe(
			'ALREADY_EXISTS'
		);
		for (const bad of [
			{ scope: 'personal', shortcut: 'Has Space', body: 'x' },
			{ scope: 'personal', shortcut: 'ok', body: '  ' },
			{ scope: 'all', shortcut: 'ok', body: 'x' }
		]) {
			expect((await ada.post('/api/canned-replies', bad)).body.error.code).toBe('INVALID_REQUEST');
		}
		const shortcuts = async (client: InboxClient) =>
			((await client.get('/api/canned-replies')).body.data as { scope: string; shortcut: string }[]).map(
				(reply) => `${reply.scope}:${reply.shortcut}`
			);
		expect(await shortcuts(ada)).toEqual(['personal:thanks', 'team:thanks']);
		expect(await shortcuts(alan)).toEqual(['team:thanks']);
		expect((await alan.request('DELETE', `/api/canned-replies/${own.body.replyId}`)).status).toBe(404);
		expect((await ada.request('DELETE', `/api/canned-replies/${team.body.replyId}`)).body.error.code).toBe('FORBIDDEN');
		expect((await ada.request('DELETE', `/api/canned-replies/${own.body.replyId}`)).status).toBe(204);
		expect((await grace.request('DELETE', `/api/canned-replies/${team.body.replyId}`)).status).toBe(204);
		expect(await shortcuts(ada)).toEqual([]);
	});

	it('lists pending invitations with their expiry, shows a link again, and a revoked one no longer verifies', async () => {
		const grace = await harness.login(ADMIN);
		const ada = await harness.loginInRoster();
		const invited = await ada.post('/api/invites', { expiresIn: 3600 });
		const listed = (await grace.get('/api/invites')).body.data.find(
			(item: { inviteId: string }) => item.inviteId === invited.body.inviteId
		);
		expect(listed).toEqual({
			inviteId: invited.body.inviteId,
			conversationId: invited.body.conversationId,
			kind: 'invite',
			createdByName: 'Ada Agent',
			createdAt: expect.stringMatching(/Z$/),
			expiresAt: invited.body.expiresAt,
			showable: true,
			mayManage: true
		});
		expect((await grace.get(`/api/invites/${invited.body.inviteId}`)).body.link).toBe(invited.body.link);

		expect((await grace.request('DELETE', `/api/invites/${invited.body.inviteId}`)).status).toBe(204);
		expect((await ada.get(`/api/invites/${invited.body.inviteId}`)).status).toBe(404);
		expect((await ada.get('/api/invites')).body.data.map((item: { inviteId: string }) => item.inviteId)).not.toContain(
			invited.body.inviteId
		);
		expect((await grace.get('/api/admin/audit?action=invitation.revoked')).body.data[0]).toMatchObject({ target: invited.body.inviteId });

		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		await expect
			.poll(async () => (await grace.get(`/api/conversations/${customer.conversationId}`)).body.trust, { timeout: 20_000 })
			.toBe('unverified');
	});

	it('keeps a profile written with the invitation sealed until the customer joins, then stores it under the conversation key', async () => {
		await initCrypto();
		const grace = await harness.login(ADMIN);
		const ada = await harness.loginInRoster();
		const invited = await ada.post('/api/invites', {});
		const id = invited.body.conversationId;
		const adaId = (await ada.get('/api/session')).body.account.accountId;
		const keys = await loadCompanyKeys(join(harness.stack().dataDir, 'keys'));
		const text = JSON.stringify({ name: 'Mila Novak', notes: 'Asked about returns' });
		const sealed = sealPendingProfile({ conversationId: id, authorId: adaId, text, companyPublicKey: keys.current.publicKey });
		expect((await ada.put(`/api/conversations/${id}/pending-profile`, { sealed: 'short' })).body.error.code).toBe('INVALID_REQUEST');
		expect((await ada.put(`/api/conversations/${id}/pending-profile`, { sealed })).status).toBe(204);
		expect(await databaseContents(harness.stack())).not.toContain('Mila Novak');

		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.profile?.version, { timeout: 20_000 }).toBe(1);
		const { profile } = (await grace.get(`/api/conversations/${id}`)).body;
		expect(profile).toMatchObject({ authorId: adaId, authorName: 'Ada Agent' });
		const conversationKey = openConversationKey((await grace.get(`/api/v1/conversations/${id}`)).body.wrapForCompany, id, [keys.current]);
		expect(decryptPrivateRecord(profile.envelope, { kind: 'profile', conversationId: id, authorId: adaId, conversationKey })).toBe(text);
		expect((await ada.put(`/api/conversations/${id}/pending-profile`, { sealed })).body.error.code).toBe('STATE_CONFLICT');
		expect(await databaseContents(harness.stack())).not.toContain('Mila Novak');
		expect(customer.conversationId).toBe(id);
	});

	it('links conversations of one customer: each lists the others, and unlinking takes one out', async () => {
		const grace = await harness.login(ADMIN);
		const ids: string[] = [];
		for (let i = 0; i < 3; i++) {
			const invited = await grace.post('/api/invites', {});
			await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
			ids.push(invited.body.conversationId);
		}
		const [a, b, c] = ids;
		const linked = async (id: string) => (await grace.get(`/api/conversations/${id}`)).body.linkedConversations.sort();
		expect((await grace.put(`/api/conversations/${b}/customer-link`, { linkedTo: a })).body.linkedConversations).toEqual([a]);
		expect(await linked(a)).toEqual([b]);
		const linkedC = await grace.put(`/api/conversations/${c}/customer-link`, { linkedTo: b });
		expect([linkedC.status, linkedC.body.linkedConversations?.sort()]).toEqual([200, [a, b].sort()]);
		expect(await linked(a)).toEqual([b, c].sort());
		expect((await grace.put(`/api/conversations/${b}/customer-link`, { linkedTo: null })).status).toBe(200);
		expect([await linked(a), await linked(b), await linked(c)]).toEqual([[c], [], [a]]);
		expect((await grace.put(`/api/conversations/${a}/customer-link`, { linkedTo: a })).body.error.code).toBe('INVALID_REQUEST');
		expect((await grace.put(`/api/conversations/${a}/customer-link`, { linkedTo: 'conv_unknown' })).status).toBe(404);
		const outsider = await harness.loginOutsider();
		expect((await outsider.put(`/api/conversations/${a}/customer-link`, { linkedTo: b })).body.error.code).toBe('NO_CONVERSATION_ACCESS');
	});

	it('admins make, staff, rename and delete teams; the roster reads them; every inbox hears of each change', async () => {
		const grace = await harness.login(ADMIN);
		const ada = await harness.loginInRoster();
		const outsider = await harness.loginOutsider();
		const [graceId, adaId] = [await accountOf(grace), await accountOf(ada)];
		const events = await ada.events();
		await events.waitFor((event) => event.event === 'ready');

		const created = await grace.post('/api/admin/teams', { name: ' Billing ', memberIds: [adaId, graceId, adaId] });
		expect(created.status).toBe(201);
		expect(created.body).toEqual({ teamId: expect.stringMatching(/^team_/), name: 'Billing', memberIds: [adaId, graceId].sort() });
		await events.waitFor((event) => event.event === 'teams.changed');
		expect((await ada.get('/api/teams')).body.data).toEqual([created.body]);

		for (const body of [
			{ name: '', memberIds: [] },
			{ name: 'x'.repeat(41), memberIds: [] },
			{ name: 'Tabs\tin it', memberIds: [] },
			{ name: 'Sales' },
			{ name: 'Sales', memberIds: 'everyone' },
			{ name: 'Sales', memberIds: [42] },
			{ name: 'Sales', memberIds: ['acc_nobody'] }
		]) {
			const refused = await grace.post('/api/admin/teams', body);
			expect([refused.status, refused.body.error.code], JSON.stringify(body)).toEqual([400, 'INVALID_REQUEST']);
		}
		expect((await grace.post('/api/admin/teams', { name: 'billing', memberIds: [] })).body.error.code).toBe('ALREADY_EXISTS');
		expect((await ada.post('/api/admin/teams', { name: 'Mine', memberIds: [adaId] })).body.error.code).toBe('FORBIDDEN');
		expect((await ada.patch(`/api/admin/teams/${created.body.teamId}`, { memberIds: [] })).body.error.code).toBe('FORBIDDEN');
		expect((await outsider.get('/api/teams')).body.error.code).toBe('NOT_IN_ROSTER');
		expect((await fetch(`${grace.url}/api/teams`)).status).toBe(401);
		// nothing of the refused requests was stored
		expect((await grace.get('/api/teams')).body.data).toEqual([created.body]);

		const renamed = await grace.patch(`/api/admin/teams/${created.body.teamId}`, { name: 'Payments', memberIds: [adaId] });
		expect(renamed.body.data).toEqual([{ teamId: created.body.teamId, name: 'Payments', memberIds: [adaId] }]);
		expect((await grace.patch('/api/admin/teams/team_nope', { name: 'X' })).status).toBe(404);

		const audit = async (action: string) =>
			((await grace.get(`/api/admin/audit?action=${action}`)).body.data as { target: string; details: object }[]).map((entry) => [
				entry.target,
				entry.details
			]);
		expect(await audit('team.created')).toEqual([[created.body.teamId, { name: 'Billing', members: [adaId, graceId].sort().join(',') }]]);
		expect(await audit('team.changed')).toEqual([[created.body.teamId, { name: 'Payments', members: adaId }]]);

		expect((await grace.request('DELETE', `/api/admin/teams/${created.body.teamId}`)).status).toBe(204);
		expect((await ada.get('/api/teams')).body.data).toEqual([]);
		expect(await audit('team.deleted')).toEqual([[created.body.teamId, { name: 'Payments' }]]);
		expect((await grace.request('DELETE', `/api/admin/teams/${created.body.teamId}`)).status).toBe(404);
		events.close();
	});

	it('gives a conversation to a team: in its view, its activity, live, and its row of the reports; a deleted team lets go', async () => {
		const grace = await harness.login(ADMIN);
		const ada = await harness.loginInRoster();
		const outsider = await harness.loginOutsider();
		const adaId = await accountOf(ada);
		const billing = (await grace.post('/api/admin/teams', { name: 'Billing', memberIds: [adaId] })).body;
		const invited = await grace.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		await customer.say('my invoice is wrong');
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}/messages`)).body.data.length, { timeout: 20_000 }).toBe(1);
		const events = await grace.events();
		await events.waitFor((event) => event.event === 'ready');

		const given = await grace.put(`/api/conversations/${id}/team`, { teamId: billing.teamId });
		expect(given.status).toBe(200);
		expect(given.body.team).toEqual({ teamId: billing.teamId, name: 'Billing' });
		expect(given.body.assignee).toBeNull();
		const seen = await events.waitFor(
			(event) => event.event === 'conversation.changed' && event.data.conversation.conversationId === id && event.data.conversation.team
		);
		expect(seen.data.conversation.team).toEqual({ teamId: billing.teamId, name: 'Billing' });
		// the same team again changes nothing
		expect((await grace.put(`/api/conversations/${id}/team`, { teamId: billing.teamId })).body.activity).toHaveLength(1);
		for (const body of [{ teamId: 'team_nope' }, { teamId: 7 }, {}]) {
			const refused = await grace.put(`/api/conversations/${id}/team`, body);
			expect([refused.status, refused.body.error.code], JSON.stringify(body)).toEqual([400, 'INVALID_REQUEST']);
		}
		expect((await outsider.put(`/api/conversations/${id}/team`, { teamId: null })).body.error.code).toBe('NO_CONVERSATION_ACCESS');
		expect((await grace.get(`/api/conversations/${id}`)).body.team).toEqual({ teamId: billing.teamId, name: 'Billing' });

		// the report counts the conversation for its team, and a click on the count lists it
		const range = `from=${day(-1)}&to=${day(1)}&tz=UTC`;
		const report = (await grace.get(`/api/reports?${range}`)).body;
		expect(report.byTeam).toEqual([
			{ key: billing.teamId, name: 'Billing', figures: expect.objectContaining({ opened: 1, messagesIn: 1 }) }
		]);
		expect((await grace.get(`/api/reports/conversations?${range}&figure=messagesIn&team=${billing.teamId}`)).body).toEqual({
			data: [id],
			hasMore: false
		});
		expect((await grace.get(`/api/reports/conversations?${range}&figure=messagesIn&team=team_other`)).body.data).toEqual([]);
		expect((await grace.get(`/api/reports/conversations?${range}&figure=open&team=${billing.teamId}`)).body.data).toEqual([id]);
		expect((await grace.get(`/api/reports/conversations?${range}&figure=opened&team=no%20id`)).body.error.code).toBe('INVALID_REQUEST');
		const csv = await fetch(`${grace.url}/api/reports/csv?${range}&table=byTeam`, { headers: { cookie: grace.cookie! } });
		expect((await csv.text()).split('\r\n')[1]).toMatch(new RegExp(`^${billing.teamId},Billing,1,`));

		// a renamed team's conversations say so at once; a deleted one's have no team, and the activity keeps the name
		await grace.patch(`/api/admin/teams/${billing.teamId}`, { name: 'Payments' });
		expect((await grace.get(`/api/conversations/${id}`)).body.team).toEqual({ teamId: billing.teamId, name: 'Payments' });
		await grace.request('DELETE', `/api/admin/teams/${billing.teamId}`);
		const after = (await grace.get(`/api/conversations/${id}`)).body;
		expect(after.team).toBeNull();
		expect(after.activity.map((line: { kind: string; details: object }) => [line.kind, line.details])).toEqual([
			['team_assigned', { teamName: 'Billing' }]
		]);
		await events.waitFor(
			(event) => event.event === 'conversation.changed' && event.data.conversation.conversationId === id && !event.data.conversation.team
		);
		events.close();
	});

	it('a company has at most 50 teams, also when two admins create the last one at once', async () => {
		const grace = await harness.login(ADMIN);
		const existing = (await grace.get('/api/teams')).body.data.length as number;
		for (let n = existing; n < 49; n++)
			expect((await grace.post('/api/admin/teams', { name: `Team ${n}`, memberIds: [] })).status).toBe(201);
		const last = await Promise.all(['Last A', 'Last B'].map((name) => grace.post('/api/admin/teams', { name, memberIds: [] })));
		expect(last.map((answer) => answer.status).sort()).toEqual([201, 409]);
		expect(last.find((answer) => answer.status === 409)?.body.error.code).toBe('STATE_CONFLICT');
		expect((await grace.get('/api/teams')).body.data).toHaveLength(50);
	});
});
