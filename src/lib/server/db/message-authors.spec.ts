import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { createAccount, deleteAccount } from './accounts';
import { claimAuthorship, lookUpAuthors } from './message-authors';
import { storeMessage } from './messages';

const now = new Date('2026-11-25T10:00:00Z');
const envelope = (clientMessageId: string) => ({
	v: 1 as const,
	scheme: 'sc1' as const,
	keyVersion: 1,
	clientMessageId,
	nonce: 'A'.repeat(32),
	ciphertext: 'A'.repeat(363)
});

describe.each(BACKENDS)('message authors on %s (docs/inbox-api.md §4 "Message authors")', (backend) => {
	const databases = useDatabases(backend);

	it('keeps the first account to use a clientMessageId, and tells agent, inbox and outside messages apart', async () => {
		const db = await databases.open();
		const account = (username: string, displayName: string) =>
			createAccount(db, { username, displayName, role: 'agent', passwordHash: 'x' }, now);
		const [ada, ben] = [await account('ada', 'Ada'), await account('ben', 'Ben')];
		const sent = { conversationId: 'conv_1', clientMessageId: 'srv_ada' };
		expect(await claimAuthorship(db, sent, ada, now)).toBe(true);
		expect(await claimAuthorship(db, sent, ada, now)).toBe(true); // the same send, retried
		expect(await claimAuthorship(db, sent, ben, now)).toBe(false);
		// the same id in another conversation is another message
		expect(await claimAuthorship(db, { conversationId: 'conv_2', clientMessageId: 'srv_ada' }, ben, now)).toBe(true);
		// sent through the inbox before it recorded authors: stored, no author
		await storeMessage(
			db,
			{
				messageId: 'msg_old',
				conversationId: 'conv_1',
				seq: 1,
				senderType: 'company',
				contentType: 'text',
				encryption: envelope('srv_old'),
				attachment: null,
				createdAt: now.toISOString()
			},
			null
		);
		const asked = ['srv_ada', 'srv_old', 'srv_elsewhere'].map((clientMessageId) => ({ conversationId: 'conv_1', clientMessageId }));
		expect(await lookUpAuthors(db, [...asked, { conversationId: 'conv_2', clientMessageId: 'srv_ada' }])).toEqual([
			{ ...asked[0], origin: 'agent', accountId: ada.accountId, displayName: 'Ada' },
			{ ...asked[1], origin: 'inbox' },
			{ ...asked[2], origin: 'outside' },
			{ conversationId: 'conv_2', clientMessageId: 'srv_ada', origin: 'agent', accountId: ben.accountId, displayName: 'Ben' }
		]);
		await db.query('update accounts set display_name = $2 where account_id = $1', [ada.accountId, 'Ada Lovelace']);
		expect((await lookUpAuthors(db, [asked[0]]))[0]).toMatchObject({ displayName: 'Ada Lovelace' });
		expect(await deleteAccount(db, ada.accountId)).toBe(true);
		expect(await lookUpAuthors(db, [asked[0]])).toEqual([{ ...asked[0], origin: 'agent', accountId: null, displayName: 'Ada' }]);
		expect(await lookUpAuthors(db, [])).toEqual([]);
	});
});
