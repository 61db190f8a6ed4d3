import { describe, expect, it } from 'vitest';
import { useDatabases } from '$test-support/databases';
import type { Account } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import type { Database } from '../db/database';
import { liveEventsAfter, newestLiveEventId } from '../db/live-events';
import { createLabel, deleteLabel, listLabels, MAX_LABELS, parseLabelFields, setConversationLabels, updateLabel } from './labels';

const now = new Date('2026-11-24T10:00:00Z');
const actor = { accountId: 'acc_admin' } as Account;

describe('a label\'s fields (docs/inbox-api.md §4 "Labels")', () => {
	it('takes a trimmed name of 1 to 40 characters and a colour of the list; a change may leave either out', () => {
		expect(parseLabelFields({ name: ' Billing ', color: 'red' }, false)).toEqual({ name: 'Billing', color: 'red' });
		expect(parseLabelFields({ name: 'x'.repeat(40), color: 'pink' }, false)).toEqual({ name: 'x'.repeat(40), color: 'pink' });
		expect(parseLabelFields({ name: 'Two words' }, true)).toEqual({ name: 'Two words' });
		expect(parseLabelFields({ color: 'gray' }, true)).toEqual({ color: 'gray' });
		expect(parseLabelFields({}, true)).toEqual({});
		for (const name of [undefined, 7, '', '   ', 'x'.repeat(41), 'tab\there'])
			expect(() => parseLabelFields({ name, color: 'red' }, false), String(name)).toThrow(
				expect.objectContaining({ code: 'INVALID_REQUEST', message: 'name must be 1 to 40 characters' })
			);
		expect(() => parseLabelFields({ name: '' }, true)).toThrow('name must be 1 to 40 characters');
		for (const color of [undefined, 'RED', 'black'])
			expect(() => parseLabelFields({ name: 'B', color }, false), String(color)).toThrow(
				'color must be one of gray, red, orange, yellow, green, teal, blue, purple, pink'
			);
		expect(() => parseLabelFields({ color: 'black' }, true)).toThrow(/^color must/);
	});
});

describe('labels in the database', () => {
	const databases = useDatabases('PGlite');

	const eventsSince = async (db: Database, after: number) =>
		(await liveEventsAfter(db, after, 100)).map(({ type, conversationId, payload }) => [type, conversationId, payload]);

	it('are made, listed by name, renamed, recoloured and deleted, each change announced to every inbox', async () => {
		const db = await databases.open();
		const deps = { db, now: () => now.getTime() };
		let seen = await newestLiveEventId(db);
		const billing = await createLabel(deps, { name: 'billing', color: 'red' });
		expect(billing).toEqual({ labelId: expect.stringMatching(/^lbl_[A-Za-z0-9_-]{12}$/), name: 'billing', color: 'red' });
		const urgent = await createLabel(deps, { name: 'Urgent', color: 'blue' });
		await createLabel(deps, { name: 'Another', color: 'gray' });
		expect((await listLabels(db)).map((label) => label.name)).toEqual(['Another', 'billing', 'Urgent']);
		await expect(createLabel(deps, { name: 'billing', color: 'gray' })).rejects.toMatchObject({
			code: 'ALREADY_EXISTS',
			message: 'another label has this name'
		});
		expect(await eventsSince(db, seen)).toEqual(Array(3).fill(['labels.changed', null, {}]));

		seen = await newestLiveEventId(db);
		await updateLabel(deps, billing.labelId, { color: 'green' });
		await updateLabel(deps, urgent.labelId, { name: 'Now' });
		expect(await listLabels(db)).toContainEqual({ labelId: billing.labelId, name: 'billing', color: 'green' });
		expect(await listLabels(db)).toContainEqual({ labelId: urgent.labelId, name: 'Now', color: 'blue' });
		await expect(updateLabel(deps, urgent.labelId, { name: 'billing' })).rejects.toMatchObject({
			code: 'ALREADY_EXISTS',
			message: 'another label has this name'
		});
		await expect(updateLabel(deps, 'lbl_none', { name: 'x' })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'no label lbl_none' });
		expect(await eventsSince(db, seen)).toEqual(Array(2).fill(['labels.changed', null, {}]));

		await ensureConversation(db, 'conv_1', 'active', now);
		await ensureConversation(db, 'conv_2', 'active', now);
		await setConversationLabels(deps, actor, 'conv_1', [billing.labelId, urgent.labelId, billing.labelId]);
		await setConversationLabels(deps, actor, 'conv_2', [urgent.labelId]);
		seen = await newestLiveEventId(db);
		await deleteLabel(deps, urgent.labelId);
		expect((await listLabels(db)).map((label) => label.labelId)).not.toContain(urgent.labelId);
		expect((await eventsSince(db, seen)).sort()).toEqual([
			['conversation.changed', 'conv_1', { conversationId: 'conv_1' }],
			['conversation.changed', 'conv_2', { conversationId: 'conv_2' }],
			['labels.changed', null, {}]
		]);
		expect(await db.query('select label_id from conversation_labels where conversation_id = $1', ['conv_1'])).toEqual([
			{ label_id: billing.labelId }
		]);
		await expect(deleteLabel(deps, urgent.labelId)).rejects.toMatchObject({ code: 'NOT_FOUND', message: `no label ${urgent.labelId}` });
	});

	it(`are at most ${MAX_LABELS}`, async () => {
		const db = await databases.open();
		const deps = { db, now: () => now.getTime() };
		await db.query(
			`insert into labels (label_id, name, color, created_at) select 'lbl_' || i, 'label ' || i, 'gray', $1 from generate_series(2, $2) i`,
			[now, MAX_LABELS]
		);
		await createLabel(deps, { name: 'the last', color: 'gray' });
		await expect(createLabel(deps, { name: 'one more', color: 'gray' })).rejects.toMatchObject({
			code: 'STATE_CONFLICT',
			message: `a team has at most ${MAX_LABELS} labels`
		});
	});

	it("set a conversation's labels to exactly those named, known ones only", async () => {
		const db = await databases.open();
		const deps = { db, now: () => now.getTime() };
		const [a, b] = [await createLabel(deps, { name: 'a', color: 'gray' }), await createLabel(deps, { name: 'b', color: 'gray' })];
		await ensureConversation(db, 'conv_1', 'active', now);
		const labelsOf = async () =>
			(
				await db.query<{ label_id: string }>('select label_id from conversation_labels where conversation_id = $1 order by label_id', [
					'conv_1'
				])
			).map((row) => row.label_id);
		const seen = await newestLiveEventId(db);
		await setConversationLabels(deps, actor, 'conv_1', [a.labelId]);
		expect(await labelsOf()).toEqual([a.labelId]);
		await setConversationLabels(deps, actor, 'conv_1', [b.labelId]);
		expect(await labelsOf()).toEqual([b.labelId]);
		expect(await eventsSince(db, seen)).toEqual(Array(2).fill(['conversation.changed', 'conv_1', { conversationId: 'conv_1' }]));
		for (const labelIds of ['x', [1], Array(MAX_LABELS + 1).fill(a.labelId)])
			await expect(setConversationLabels(deps, actor, 'conv_1', labelIds)).rejects.toMatchObject({
				code: 'INVALID_REQUEST',
				message: 'labelIds must be a list of label ids'
			});
		await expect(setConversationLabels(deps, actor, 'conv_1', [a.labelId, 'lbl_none'])).rejects.toMatchObject({
			code: 'INVALID_REQUEST',
			message: 'labelIds names a label that does not exist'
		});
		await expect(setConversationLabels(deps, actor, 'conv_none', [])).rejects.toMatchObject({
			code: 'NOT_FOUND',
			message: 'no conversation conv_none'
		});
		await setConversationLabels(deps, actor, 'conv_1', Array(MAX_LABELS).fill(a.labelId));
		expect(await labelsOf()).toEqual([a.labelId]);
	});
});
