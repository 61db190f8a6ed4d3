import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { createAccount } from '../db/accounts';
import { ensureConversation } from '../db/conversations';
import { liveEventsAfter, newestLiveEventId } from '../db/live-events';
import { changeTeamState, MAX_SNOOZE_MS, parseTeamStateChange, reopenOnCustomerMessages, wakeSnoozed } from './lifecycle';

const now = new Date('2026-11-25T10:00:00Z');

describe('the team state of a conversation (docs/inbox-api.md §4 "Lifecycle")', () => {
	it('takes open, resolved, or snoozed until a time in the coming year', () => {
		expect(parseTeamStateChange({ state: 'resolved' }, now)).toEqual({ state: 'resolved', snoozedUntil: null });
		expect(parseTeamStateChange({ state: 'snoozed', snoozedUntil: '2026-11-26T09:00:00+01:00' }, now)).toEqual({
			state: 'snoozed',
			snoozedUntil: new Date('2026-11-26T08:00:00Z')
		});
		for (const bad of [
			{ state: 'closed' },
			{ state: 'open', snoozedUntil: '2026-11-26T09:00:00Z' },
			{ state: 'snoozed' },
			{ state: 'snoozed', snoozedUntil: '2026-11-25T09:59:59Z' },
			{ state: 'snoozed', snoozedUntil: '2027-12-01T00:00:00Z' },
			{ state: 'snoozed', snoozedUntil: '2026-11-26 09:00' },
			{ state: 'snoozed', snoozedUntil: 1_800_000_000_000 }
		]) {
			expect(() => parseTeamStateChange(bad, now), JSON.stringify(bad)).toThrow(/state must|snoozedUntil/);
		}
		expect(() => parseTeamStateChange({ state: 'closed' }, now)).toThrow('state must be one of open, resolved, snoozed');
		// the time's exact shape: minutes at least, any fraction of a second, and a zone, nothing around it
		const snooze = (snoozedUntil: unknown) => parseTeamStateChange({ state: 'snoozed', snoozedUntil }, now).snoozedUntil;
		expect(snooze('2026-11-26T09:00Z')).toEqual(new Date('2026-11-26T09:00:00Z'));
		expect(snooze('2026-11-26T09:00:00.125Z')).toEqual(new Date('2026-11-26T09:00:00.125Z'));
		// Date reads a six-digit year after a sign, and stops at a NUL: the pattern's anchors refuse both
		for (const bad of [
			'x2026-11-26T09:00:00Z',
			'2026-11-26T09:00:00Zx',
			'2026-11-26T09:00:00.Z',
			'+002026-11-26T09:00:00Z',
			'2026-11-26T09:00:00Z\0'
		])
			expect(() => snooze(bad), bad).toThrow('snoozedUntil must be a time with its zone, in the coming year');
		// from just after now to exactly MAX_SNOOZE_MS ahead
		expect(() => snooze(now.toISOString())).toThrow(/^snoozedUntil must/);
		expect(snooze(new Date(now.getTime() + MAX_SNOOZE_MS).toISOString())).toEqual(new Date(now.getTime() + MAX_SNOOZE_MS));
	});
});

describe.each(BACKENDS)('snoozes and customer messages on %s', (backend) => {
	const databases = useDatabases(backend);

	it('wakes each ended snooze once, leaves later ones, and a customer message opens resolved and snoozed conversations', async () => {
		const db = await databases.open();
		for (const id of ['conv_due', 'conv_later', 'conv_resolved', 'conv_open']) await ensureConversation(db, id, 'active', now);
		const set = (id: string, state: string, until: Date | null) =>
			db.query('update conversations set team_state = $2, snoozed_until = $3 where conversation_id = $1', [id, state, until]);
		await set('conv_due', 'snoozed', new Date(now.getTime() - 1000));
		await set('conv_later', 'snoozed', new Date(now.getTime() + 60_000));
		await set('conv_resolved', 'resolved', null);
		const states = async () =>
			Object.fromEntries(
				(await db.query<{ conversation_id: string; team_state: string }>('select conversation_id, team_state from conversations')).map(
					(row) => [row.conversation_id, row.team_state]
				)
			);

		expect(await Promise.all([wakeSnoozed(db, now), wakeSnoozed(db, now)])).toEqual(expect.arrayContaining([1, 0]));
		expect(await states()).toEqual({ conv_due: 'open', conv_later: 'snoozed', conv_resolved: 'resolved', conv_open: 'open' });
		const changed = await db.query<{ conversation_id: string; payload: object }>(
			"select conversation_id, payload from live_events where type = 'conversation.changed'"
		);
		expect(changed.map((row) => [row.conversation_id, row.payload])).toEqual([['conv_due', { conversationId: 'conv_due' }]]);

		await reopenOnCustomerMessages(db, ['conv_later', 'conv_resolved', 'conv_open'], now);
		expect(await states()).toEqual({ conv_due: 'open', conv_later: 'open', conv_resolved: 'open', conv_open: 'open' });
		const lines = await db.query<{ conversation_id: string; details: object }>(
			"select conversation_id, details from conversation_activity where kind = 'reopened' order by activity_id"
		);
		expect(lines.map((line) => [line.conversation_id, line.details])).toEqual([
			['conv_due', { reason: 'snooze_ended' }],
			['conv_later', { reason: 'customer_message', was: 'snoozed' }],
			['conv_resolved', { reason: 'customer_message', was: 'resolved' }]
		]);
	});
});

describe('changes of the team state (docs/inbox-api.md §4 "Lifecycle")', () => {
	const databases = useDatabases('PGlite');

	it('records each change as a line of activity and a live event; the same state again changes nothing, a snooze moves', async () => {
		const db = await databases.open();
		const deps = { db, now: () => now.getTime() };
		const grace = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, now);
		await ensureConversation(db, 'conv_1', 'active', now);
		const state = async () =>
			(
				await db.query<{ team_state: string; snoozed_until: Date | null }>(
					"select team_state, snoozed_until from conversations where conversation_id = 'conv_1'"
				)
			).map((row) => [row.team_state, row.snoozed_until && new Date(row.snoozed_until).toISOString()])[0];
		const seen = await newestLiveEventId(db);
		const change = (state: 'open' | 'resolved' | 'snoozed', snoozedUntil: string | null = null) =>
			changeTeamState(deps, grace, 'conv_1', { state, snoozedUntil: snoozedUntil === null ? null : new Date(snoozedUntil) });

		await change('open');
		await change('resolved');
		expect(await state()).toEqual(['resolved', null]);
		await change('resolved');
		await change('snoozed', '2026-11-26T09:00:00.250Z');
		expect(await state()).toEqual(['snoozed', '2026-11-26T09:00:00.250Z']);
		await change('snoozed', '2026-11-26T09:00:00.250Z');
		await change('snoozed', '2026-11-27T09:00:00Z');
		expect(await state()).toEqual(['snoozed', '2026-11-27T09:00:00.000Z']);
		await change('open');
		expect(await state()).toEqual(['open', null]);

		const lines = await db.query<{ kind: string; actor_name: string; details: object }>(
			"select kind, actor_name, details from conversation_activity where conversation_id = 'conv_1' order by activity_id"
		);
		expect(lines.map((line) => [line.kind, line.actor_name, line.details])).toEqual([
			['resolved', 'Grace', {}],
			['snoozed', 'Grace', { until: '2026-11-26T09:00:00Z' }],
			['snoozed', 'Grace', { until: '2026-11-27T09:00:00Z' }],
			['reopened', 'Grace', {}]
		]);
		expect((await liveEventsAfter(db, seen, 10)).map((event) => [event.type, event.conversationId, event.payload])).toEqual(
			Array(4).fill(['conversation.changed', 'conv_1', { conversationId: 'conv_1' }])
		);
		await expect(changeTeamState(deps, grace, 'conv_none', { state: 'resolved', snoozedUntil: null })).rejects.toMatchObject({
			code: 'NOT_FOUND',
			message: 'no conversation conv_none'
		});
	});
});
