import { describe, expect, it } from 'vitest';
import { useDatabases } from '$test-support/databases';
import { createAccount, setAccountDisabled } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import { liveEventsAfter, newestLiveEventId } from '../db/live-events';
import { updateSettings } from '../db/settings';
import { assignConversation, assignOnFirstReply } from './assignment';

const now = new Date('2026-11-24T10:00:00Z');

describe('who owns a conversation (docs/inbox-api.md §4 "Assignment")', () => {
	const databases = useDatabases('PGlite');

	it('assigns to an account that can read it or to nobody, each change a line of activity and a live event', async () => {
		const db = await databases.open();
		const deps = { db, now: () => now.getTime() };
		const account = (username: string, role: 'agent' | 'admin') =>
			createAccount(db, { username, displayName: username.toUpperCase(), role, passwordHash: 'h' }, now);
		const grace = await account('grace', 'admin');
		const hopper = await account('hopper', 'admin');
		const keyless = await account('eve', 'agent');
		const gone = await account('gone', 'admin');
		await setAccountDisabled(db, gone.accountId, now);
		await ensureConversation(db, 'conv_1', 'active', now);
		const assignee = async () =>
			(await db.query<{ assignee_id: string | null }>("select assignee_id from conversations where conversation_id = 'conv_1'"))[0]
				.assignee_id;
		const activity = async () =>
			(
				await db.query<{ kind: string; actor_name: string; details: object }>(
					"select kind, actor_name, details from conversation_activity where conversation_id = 'conv_1' order by activity_id"
				)
			).map((row) => [row.kind, row.actor_name, row.details]);

		const seen = await newestLiveEventId(db);
		await assignConversation(deps, grace, 'conv_1', hopper.accountId);
		expect(await assignee()).toBe(hopper.accountId);
		await assignConversation(deps, grace, 'conv_1', hopper.accountId);
		await assignConversation(deps, hopper, 'conv_1', null);
		expect(await assignee()).toBeNull();
		await assignConversation(deps, hopper, 'conv_1', null);
		expect(await activity()).toEqual([
			['assigned', 'GRACE', { assigneeName: 'HOPPER' }],
			['unassigned', 'HOPPER', { assigneeName: 'HOPPER' }]
		]);
		expect((await liveEventsAfter(db, seen, 10)).map((event) => [event.type, event.conversationId, event.payload])).toEqual(
			Array(2).fill(['conversation.changed', 'conv_1', { conversationId: 'conv_1' }])
		);

		for (const id of [keyless.accountId, gone.accountId, 'acc_nobody'])
			await expect(assignConversation(deps, grace, 'conv_1', id)).rejects.toMatchObject({
				code: 'STATE_CONFLICT',
				message: 'that account cannot read this conversation (disabled, not in the latest roster, or its key holds no wrap of it)'
			});
		await expect(assignConversation(deps, grace, 'conv_none', null)).rejects.toMatchObject({
			code: 'NOT_FOUND',
			message: 'no conversation conv_none'
		});
	});

	it("assigns an unassigned conversation to the first reply's sender when the team asks for it", async () => {
		const db = await databases.open();
		const grace = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, now);
		const ada = await createAccount(db, { username: 'ada', displayName: 'Ada', role: 'admin', passwordHash: 'h' }, now);
		await ensureConversation(db, 'conv_1', 'active', now);
		const assignee = async () =>
			(await db.query<{ assignee_id: string | null }>("select assignee_id from conversations where conversation_id = 'conv_1'"))[0]
				.assignee_id;
		await assignOnFirstReply(db, grace, 'conv_1', now);
		expect(await assignee()).toBeNull();
		await updateSettings(db, { assignOnFirstReply: true }, grace, now);
		await assignOnFirstReply(db, grace, 'conv_1', now);
		expect(await assignee()).toBe(grace.accountId);
		await assignOnFirstReply(db, ada, 'conv_1', now);
		expect(await assignee()).toBe(grace.accountId);
		expect(await db.query("select kind, details from conversation_activity where conversation_id = 'conv_1'")).toEqual([
			{ kind: 'assigned', details: { assigneeName: 'Grace', automatic: true, rule: 'first_reply' } }
		]);
	});
});
