import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import type { PrivateEnvelope } from '../../crypto/private-record';
import { createAccount, registerAgentKey, setAccountDisabled, type Account } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import type { Database } from '../db/database';
import { liveEventsAfter, newestLiveEventId } from '../db/live-events';
import { storeAgentWraps } from '../db/messages';
import { storeRoster } from '../db/rosters';
import { listMentions, listReaders, parseMentionIds, readMentions } from './mentions';
import { addNote } from './notes';

const start = Date.parse('2026-11-24T10:00:00Z');
const wrap = { keyVersion: 1, sealed: 'A'.repeat(120) };

const envelope = (recordId: string): PrivateEnvelope => ({
	v: 1,
	scheme: 'in1',
	keyVersion: 1,
	recordId,
	nonce: 'N'.repeat(32),
	ciphertext: 'C'.repeat(364)
});

async function agent(db: Database, name: string, inRoster: boolean): Promise<Account> {
	const created = await createAccount(
		db,
		{ username: name, displayName: name.toUpperCase(), role: 'agent', passwordHash: 'h' },
		new Date(start)
	);
	if (!inRoster) return created;
	return registerAgentKey(
		db,
		{ accountId: created.accountId, agentKeyId: `agk_${name.padEnd(8, '0')}`, publicKey: `PK_${name}`, replace: false },
		new Date(start)
	);
}

/**
 * Ana, Bo and Cy are agents of the latest roster holding conv_1's key; Dee is in the roster without a wrap
 * of it; Eve has no key; Grace is an admin; Gone was disabled.
 */
async function team(db: Database) {
	const [ana, bo, cy, dee, eve] = [
		await agent(db, 'ana', true),
		await agent(db, 'bo', true),
		await agent(db, 'cy', true),
		await agent(db, 'dee', true),
		await agent(db, 'eve', false)
	];
	const grace = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, new Date(start));
	const gone = await createAccount(db, { username: 'gone', displayName: 'Gone', role: 'admin', passwordHash: 'h' }, new Date(start));
	await setAccountDisabled(db, gone.accountId, new Date(start));
	await storeRoster(db, {
		rosterVersion: 1,
		issuedAt: '2026-11-24T10:00:00Z',
		agents: [ana, bo, cy, dee].map((account) => ({ agentKeyId: account.agentKeyId!, publicKey: account.agentPublicKey! })),
		signature: 'S',
		uploadedBy: null,
		uploadedAt: new Date(start)
	});
	await ensureConversation(db, 'conv_1', 'active', new Date(start));
	await storeAgentWraps(
		db,
		'conv_1',
		[ana, bo, cy].map((account) => ({ agentKeyId: account.agentKeyId!, rosterVersion: 1, wrap })),
		new Date(start)
	);
	return { ana, bo, cy, dee, eve, grace, gone };
}

describe('the mentions field of a note (docs/inbox-api.md §4 "Mentions")', () => {
	it('is absent or a list of distinct account ids, at most 20', () => {
		expect(parseMentionIds(undefined)).toEqual([]);
		expect(parseMentionIds(['acc_aaaaaaaaaaaaaaaa', 'acc_bbbbbbbbbbbbbbbb'])).toEqual(['acc_aaaaaaaaaaaaaaaa', 'acc_bbbbbbbbbbbbbbbb']);
		for (const bad of ['acc_aaaaaaaaaaaaaaaa', [42], ['Ana'], Array.from({ length: 21 }, (_, i) => `acc_${String(i).padStart(16, 'a')}`)])
			expect(() => parseMentionIds(bad)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', status: 400 }));
		expect(() => parseMentionIds(['acc_aaaaaaaaaaaaaaaa', 'acc_aaaaaaaaaaaaaaaa'])).toThrow(
			expect.objectContaining({ code: 'INVALID_REQUEST', message: 'mentions must name each account once' })
		);
	});
});

describe.each(BACKENDS)('mentions in private notes on %s (docs/inbox-api.md §4 "Mentions")', (backend) => {
	const databases = useDatabases(backend);

	it('offers the readers of the conversation, and refuses anyone else or the writer, storing nothing', async () => {
		const db = await databases.open();
		const { ana, bo, cy, dee, eve, grace, gone } = await team(db);
		const deps = { db, now: () => start };
		expect((await listReaders(db, 'conv_1', new Date(start))).map((reader) => [reader.displayName, reader.availability])).toEqual([
			['ANA', 'offline'],
			['BO', 'offline'],
			['CY', 'offline'],
			['Grace', 'offline']
		]);

		const seen = await newestLiveEventId(db);
		for (const [refused, message] of [
			[dee, `${dee.accountId} cannot read this conversation`],
			[eve, `${eve.accountId} cannot read this conversation`],
			[gone, `${gone.accountId} cannot read this conversation`],
			[{ accountId: 'acc_nobody0000000000' }, 'acc_nobody0000000000 cannot read this conversation'],
			[ana, 'a note cannot mention its own writer']
		] as const) {
			await expect(
				addNote(deps, ana, { conversationId: 'conv_1', envelope: envelope('note_refused'), mentions: [bo.accountId, refused.accountId] })
			).rejects.toMatchObject({ code: 'MENTION_NOT_ALLOWED', status: 409, message: expect.stringContaining(message) });
		}
		expect(await db.query('select note_id from conversation_notes')).toEqual([]);
		expect(await db.query('select note_id from note_mentions')).toEqual([]);
		expect(await liveEventsAfter(db, seen, 10)).toEqual([]);
		expect(await listMentions(db, bo)).toEqual([]);

		// an admin can read every conversation, and may be mentioned
		const added = await addNote(deps, ana, { conversationId: 'conv_1', envelope: envelope('note_1'), mentions: [grace.accountId] });
		expect(added?.created).toBe(true);
		expect((await listMentions(db, grace)).map((mention) => mention.conversationId)).toEqual(['conv_1']);
		expect(await listMentions(db, cy)).toEqual([]);
	});

	it('tells the mentioned accounts alone, keeps a retry to its first mentions, and reads them when the account opens the conversation', async () => {
		const db = await databases.open();
		const { ana, bo, cy, grace } = await team(db);
		let now = start;
		const deps = { db, now: () => now };
		const seen = await newestLiveEventId(db);

		const first = await addNote(deps, ana, {
			conversationId: 'conv_1',
			envelope: envelope('note_1'),
			mentions: [bo.accountId, cy.accountId]
		});
		const events = await liveEventsAfter(db, seen, 10);
		expect(events.map((event) => [event.type, event.conversationId, event.payload])).toEqual([
			['note.created', 'conv_1', { conversationId: 'conv_1', note: first!.note }],
			...[bo, cy].map((account) => [
				'mention.created',
				'conv_1',
				{ conversationId: 'conv_1', noteId: 'note_1', accountId: account.accountId, authorName: 'ANA', createdAt: '2026-11-24T10:00:00Z' }
			])
		]);
		// the same note sent again is the stored one; the mentions it carries then change nothing
		const again = await addNote(deps, ana, { conversationId: 'conv_1', envelope: envelope('note_1'), mentions: [grace.accountId] });
		expect(again).toEqual({ note: first!.note, created: false });
		expect(await listMentions(db, grace)).toEqual([]);

		now = start + 60_000;
		await addNote(deps, cy, { conversationId: 'conv_1', envelope: envelope('note_2'), mentions: [bo.accountId] });
		expect(await listMentions(db, bo)).toEqual([
			{ conversationId: 'conv_1', unreadCount: 2, lastMentionedAt: '2026-11-24T10:01:00Z', lastMentionedBy: 'CY' }
		]);
		expect(await listMentions(db, ana)).toEqual([]);

		const beforeRead = await newestLiveEventId(db);
		expect(await readMentions(deps, bo, 'conv_1')).toBe(2);
		expect(await listMentions(db, bo)).toEqual([
			{ conversationId: 'conv_1', unreadCount: 0, lastMentionedAt: '2026-11-24T10:01:00Z', lastMentionedBy: 'CY' }
		]);
		// Cy's mention stays unread: Bo's reading is Bo's
		expect((await listMentions(db, cy))[0].unreadCount).toBe(1);
		expect(await readMentions(deps, bo, 'conv_1')).toBe(0);
		expect((await liveEventsAfter(db, beforeRead, 10)).map((event) => [event.type, event.payload])).toEqual([
			['mention.read', { conversationId: 'conv_1', accountId: bo.accountId }]
		]);

		// a mention after the read is unread again
		now = start + 120_000;
		await addNote(deps, ana, { conversationId: 'conv_1', envelope: envelope('note_3'), mentions: [bo.accountId] });
		expect(await listMentions(db, bo)).toEqual([
			{ conversationId: 'conv_1', unreadCount: 1, lastMentionedAt: '2026-11-24T10:02:00Z', lastMentionedBy: 'ANA' }
		]);
	});
});
