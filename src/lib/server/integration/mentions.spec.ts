import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { encryptPrivateRecord, initCrypto, newRecordId, openConversationKey } from '../../crypto/index';
import { loadCompanyKeys } from '../keys/files';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const READERS = [
	{ username: 'alan', displayName: 'Alan Admin', password: 'alan password 123', role: 'admin' },
	{ username: 'hopper', displayName: 'Grace Hopper', password: 'hopper password 123', role: 'admin' }
];

describe.each(BACKENDS)('mentions in private notes over HTTP on %s (docs/inbox-api.md §4 "Mentions")', (backend) => {
	const harness = useStack(backend);

	it('takes mentions of readers only, tells the mentioned account alone over its live stream, and keeps its read mark', async () => {
		await initCrypto();
		const grace = await harness.login(ADMIN);
		const [alan, hopper] = await Promise.all(
			READERS.map(async (reader) => {
				await grace.post('/api/admin/accounts', reader);
				return InboxClient.loggedIn(harness.stack().inbox.url, reader.username, reader.password);
			})
		);
		const ada = await harness.login(); // an agent without a key: she cannot read the conversation
		const idOf = async (client: InboxClient) => (await client.get('/api/session')).body.account.accountId as string;
		const [graceId, alanId, adaId] = await Promise.all([grace, alan, ada].map(idOf));
		const invited = await grace.post('/api/invites', {});
		const id = (await Customer.redeem(harness.stack().simUrl, { link: invited.body.link })).conversationId;
		await expect.poll(async () => (await grace.get(`/api/conversations/${id}`)).body.status, { timeout: 20_000 }).toBe('active');
		const keys = await loadCompanyKeys(join(harness.stack().dataDir, 'keys'));
		const conversationKey = openConversationKey((await grace.get(`/api/v1/conversations/${id}`)).body.wrapForCompany, id, [keys.current]);
		const note = (text: string) =>
			encryptPrivateRecord({
				kind: 'note',
				conversationId: id,
				authorId: graceId,
				recordId: newRecordId('note'),
				keyVersion: 1,
				text,
				conversationKey
			});

		// whom a note may mention: the conversation's readers
		const readers = (await grace.get(`/api/conversations/${id}/readers`)).body.data.map(
			(reader: { displayName: string }) => reader.displayName
		);
		expect(readers).toEqual(expect.arrayContaining(['Alan Admin', 'Grace Admin', 'Grace Hopper']));
		expect(readers).not.toContain('Ada Agent');
		expect((await ada.get(`/api/conversations/${id}/readers`)).body.error.code).toBe('NO_CONVERSATION_ACCESS');

		// someone who cannot read it is refused, and nothing of the note is kept
		const refused = note('Ada, look at this.');
		const answer = await grace.post(`/api/conversations/${id}/notes`, { envelope: refused, mentions: [alanId, adaId] });
		expect([answer.status, answer.body.error.code]).toEqual([409, 'MENTION_NOT_ALLOWED']);
		expect((await grace.post(`/api/conversations/${id}/notes`, { envelope: refused, mentions: 'alan' })).body.error.code).toBe(
			'INVALID_REQUEST'
		);
		expect((await grace.get(`/api/conversations/${id}/notes`)).body.data).toEqual([]);

		const [alansEvents, hoppersEvents] = await Promise.all([alan.events(), hopper.events()]);
		await Promise.all([alansEvents, hoppersEvents].map((events) => events.waitFor((event) => event.event === 'ready')));
		const envelope = note('Alan, the refund is yours to approve.');
		expect((await grace.post(`/api/conversations/${id}/notes`, { envelope, mentions: [alanId] })).status).toBe(201);
		const told = await alansEvents.waitFor((event) => event.event === 'mention.created');
		expect(told.data).toEqual({
			conversationId: id,
			noteId: envelope.recordId,
			accountId: alanId,
			authorName: 'Grace Admin',
			createdAt: expect.any(String)
		});
		// Hopper reads the note live, and hears nothing of Alan's mention (events come in order)
		await hoppersEvents.waitFor((event) => event.event === 'note.created' && event.data.note.noteId === envelope.recordId);
		expect((await alan.get('/api/mentions')).body.data).toEqual([
			{ conversationId: id, unreadCount: 1, lastMentionedAt: told.data.createdAt, lastMentionedBy: 'Grace Admin' }
		]);
		expect((await hopper.get('/api/mentions')).body.data).toEqual([]);

		// Alan opens the conversation: read, for his other tabs too
		expect((await alan.post(`/api/conversations/${id}/mentions/read`, {})).status).toBe(204);
		await alansEvents.waitFor((event) => event.event === 'mention.read' && event.data.conversationId === id);
		expect((await alan.get('/api/mentions')).body.data[0].unreadCount).toBe(0);
		// a later event reaches Hopper: the mention and its read mark before it did not
		await grace.post(`/api/conversations/${id}/presence`, { state: 'viewing' });
		await hoppersEvents.waitFor((event) => event.event === 'presence');
		alansEvents.close();
		hoppersEvents.close();
		expect(hoppersEvents.received.map((event) => event.event).filter((name) => name.startsWith('mention.'))).toEqual([]);
	});
});
