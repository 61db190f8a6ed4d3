import { describe, expect, it } from 'vitest';
import { useDatabases } from '$test-support/databases';
import { quietLogger } from '$test-support/loggers';
import type { RosterDeps } from '../admin/roster';
import { createAccount } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import { liveEventsAfter, newestLiveEventId } from '../db/live-events';
import { linkCustomer } from './customer-links';

const now = new Date('2026-11-24T10:00:00Z');

describe('conversations of the same customer (docs/inbox-api.md §4 "Customer profile")', () => {
	const databases = useDatabases('PGlite');

	it('links conversations into one group, merges two groups, and takes one out, announcing each member', async () => {
		const db = await databases.open();
		const deps = { db, now: () => now.getTime(), log: quietLogger } as unknown as RosterDeps;
		const admin = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, now);
		for (const id of ['conv_a', 'conv_b', 'conv_c', 'conv_d']) await ensureConversation(db, id, 'active', now);
		const groups = async () =>
			Object.fromEntries(
				(
					await db.query<{ conversation_id: string; customer_group: string | null }>(
						'select conversation_id, customer_group from conversations order by conversation_id'
					)
				).map((row) => [row.conversation_id, row.customer_group])
			);
		const announced = async (after: number) =>
			(await liveEventsAfter(db, after, 100)).map((event) => [event.type, event.conversationId, event.payload]).sort();
		const changed = (id: string) => ['conversation.changed', id, { conversationId: id }];

		let seen = await newestLiveEventId(db);
		await linkCustomer(deps, admin, 'conv_a', 'conv_b');
		const first = (await groups()).conv_a;
		expect(first).toMatch(/^cus_[A-Za-z0-9_-]{12}$/);
		expect(await groups()).toEqual({ conv_a: first, conv_b: first, conv_c: null, conv_d: null });
		expect(await announced(seen)).toEqual([changed('conv_a'), changed('conv_b')]);

		// c joins b's group; then d and c's group become one under c's
		await linkCustomer(deps, admin, 'conv_c', 'conv_b');
		expect(await groups()).toEqual({ conv_a: first, conv_b: first, conv_c: first, conv_d: null });
		await expect(linkCustomer(deps, admin, 'conv_d', 'conv_d')).rejects.toMatchObject({
			code: 'INVALID_REQUEST',
			message: 'a conversation cannot be linked to itself'
		});
		await db.query("update conversations set customer_group = 'cus_other' where conversation_id = 'conv_d'");
		await linkCustomer(deps, admin, 'conv_d', 'conv_a');
		expect(await groups()).toEqual({ conv_a: first, conv_b: first, conv_c: first, conv_d: first });
		await db.query("update conversations set customer_group = 'cus_other' where conversation_id = 'conv_d'");
		await linkCustomer(deps, admin, 'conv_a', 'conv_d');
		expect(await groups()).toEqual({ conv_a: 'cus_other', conv_b: 'cus_other', conv_c: 'cus_other', conv_d: 'cus_other' });

		seen = await newestLiveEventId(db);
		await linkCustomer(deps, admin, 'conv_b', null);
		expect(await groups()).toEqual({ conv_a: 'cus_other', conv_b: null, conv_c: 'cus_other', conv_d: 'cus_other' });
		expect(await announced(seen)).toEqual([changed('conv_a'), changed('conv_b'), changed('conv_c'), changed('conv_d')]);
		seen = await newestLiveEventId(db);
		await linkCustomer(deps, admin, 'conv_b', null);
		expect(await announced(seen)).toEqual([]);

		await expect(linkCustomer(deps, admin, 'conv_a', 'conv_none')).rejects.toMatchObject({ code: 'NOT_FOUND' });
		await expect(linkCustomer(deps, admin, 'conv_none', 'conv_a')).rejects.toMatchObject({
			code: 'NOT_FOUND',
			message: 'no such conversation'
		});
		await expect(linkCustomer(deps, admin, 'conv_none', null)).rejects.toMatchObject({ code: 'NOT_FOUND' });
	});

	it('keeps the names of groups: one joins from either side under its own, two merge under the other one', async () => {
		const db = await databases.open();
		const deps = { db, now: () => now.getTime(), log: quietLogger } as unknown as RosterDeps;
		const admin = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, now);
		for (const id of ['conv_a', 'conv_b', 'conv_c', 'conv_d', 'conv_e', 'conv_f']) await ensureConversation(db, id, 'active', now);
		const setGroup = (group: string, ...ids: string[]) =>
			db.query('update conversations set customer_group = $1 where conversation_id = any($2::text[])', [group, ids]);
		const groups = async () =>
			(await db.query<{ customer_group: string | null }>('select customer_group from conversations order by conversation_id')).map(
				(row) => row.customer_group
			);
		await setGroup('cus_one', 'conv_a', 'conv_b');
		await setGroup('cus_two', 'conv_c', 'conv_d');
		// a conversation of one group links to one of none: that one joins, the name stays
		await linkCustomer(deps, admin, 'conv_a', 'conv_e');
		expect(await groups()).toEqual(['cus_one', 'cus_one', 'cus_two', 'cus_two', 'cus_one', null]);
		// two groups of two or more: every member of both goes under the other conversation's group
		const seen = await newestLiveEventId(db);
		await linkCustomer(deps, admin, 'conv_b', 'conv_d');
		expect(await groups()).toEqual(['cus_two', 'cus_two', 'cus_two', 'cus_two', 'cus_two', null]);
		expect((await liveEventsAfter(db, seen, 100)).map((event) => event.conversationId).sort()).toEqual([
			'conv_a',
			'conv_b',
			'conv_c',
			'conv_d',
			'conv_e'
		]);
		// the conversation linked is found by its id, not by its place among the rows (b sorts before c)
		await linkCustomer(deps, admin, 'conv_b', null);
		await linkCustomer(deps, admin, 'conv_c', 'conv_b');
		expect(await groups()).toEqual(['cus_two', 'cus_two', 'cus_two', 'cus_two', 'cus_two', null]);
	});
});
