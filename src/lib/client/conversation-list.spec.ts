import { describe, expect, it } from 'vitest';
import {
	compareConversations,
	countAssignments,
	countConversations,
	countLifecycle,
	filterConversations,
	inAssignmentView,
	mergeSorted,
	replaceSorted
} from './conversation-list';
import { conversationView as conversation } from '$test-support/conversation-view';

describe('conversation order', () => {
	it('puts the latest activity first, then orders by id', () => {
		const list = [
			conversation('conv_b', '2026-01-01T10:00:00Z'),
			conversation('conv_c', '2026-01-02T10:00:00Z'),
			conversation('conv_a', '2026-01-01T10:00:00Z')
		];
		expect(list.sort(compareConversations).map((item) => item.conversationId)).toEqual(['conv_c', 'conv_b', 'conv_a']);
	});

	it('moves a conversation with new activity to its place without duplicating it', () => {
		const sorted = [
			conversation('conv_1', '2026-01-03T00:00:00Z'),
			conversation('conv_2', '2026-01-02T00:00:00Z'),
			conversation('conv_3', '2026-01-01T00:00:00Z')
		];
		const moved = replaceSorted(sorted, sorted[2], conversation('conv_3', '2026-01-04T00:00:00Z', { unreadCount: 1 }));
		expect(moved.map((item) => item.conversationId)).toEqual(['conv_3', 'conv_1', 'conv_2']);
		expect(moved[0].unreadCount).toBe(1);
		expect(replaceSorted(moved, undefined, conversation('conv_4', '2026-01-02T12:00:00Z')).map((item) => item.conversationId)).toEqual([
			'conv_3',
			'conv_1',
			'conv_4',
			'conv_2'
		]);
	});

	it('merges pages, keeping the newest copy', () => {
		const merged = mergeSorted(
			[conversation('conv_1', '2026-01-01T00:00:00Z')],
			[conversation('conv_1', '2026-01-05T00:00:00Z'), conversation('conv_2', '2026-01-02T00:00:00Z')]
		);
		expect(merged.map((item) => [item.conversationId, item.lastActivityAt])).toEqual([
			['conv_1', '2026-01-05T00:00:00Z'],
			['conv_2', '2026-01-02T00:00:00Z']
		]);
	});
});

describe('filters and counts', () => {
	const list = [
		conversation('conv_Active1', '2026-01-05T00:00:00Z', { unreadCount: 2 }),
		conversation('conv_Waiting', '2026-01-04T00:00:00Z', { status: 'awaiting_key' }),
		conversation('conv_Pending', '2026-01-03T00:00:00Z', { status: 'pending', trust: null }),
		conversation('conv_Closed1', '2026-01-02T00:00:00Z', { status: 'closed', unreadCount: 1 })
	];

	it('filters by status, unread and search', () => {
		const previews = new Map([['conv_Waiting', 'Where is my parcel?']]);
		const ids = (filter: Parameters<typeof filterConversations>[1]) =>
			filterConversations(list, filter, previews).map((item) => item.conversationId);
		expect(ids({ status: 'all', unreadOnly: false, search: '' })).toHaveLength(4);
		expect(ids({ status: 'awaiting_key', unreadOnly: false, search: '' })).toEqual(['conv_Waiting']);
		expect(ids({ status: 'all', unreadOnly: true, search: '' })).toEqual(['conv_Active1', 'conv_Closed1']);
		expect(ids({ status: 'all', unreadOnly: false, search: 'parcel' })).toEqual(['conv_Waiting']);
		expect(ids({ status: 'all', unreadOnly: false, search: 'pend ing' })).toEqual(['conv_Pending']);
		expect(ids({ status: 'closed', unreadOnly: false, search: 'active' })).toEqual([]);
	});

	it('counts every filter and its unread conversations', () => {
		const counts = countConversations(list);
		expect(counts.total).toEqual({ all: 4, active: 1, awaiting_key: 1, pending: 1, closed: 1 });
		expect(counts.unread).toEqual({ all: 2, active: 1, awaiting_key: 0, pending: 0, closed: 1 });
	});
});

describe('assignment views (docs/inbox-api.md §4 "Assignment")', () => {
	const ada = { accountId: 'acc_ada', displayName: 'Ada' };
	const ben = { accountId: 'acc_ben', displayName: 'Ben' };
	const billing = { teamId: 'team_billing', name: 'Billing' };
	const list = [
		conversation('c1', '2026-01-05T00:00:00Z', { assignee: ada }),
		conversation('c2', '2026-01-04T00:00:00Z', { assignee: ben, team: billing }),
		conversation('c3', '2026-01-03T00:00:00Z', { team: billing }),
		conversation('c4', '2026-01-02T00:00:00Z', { assignee: ada, status: 'closed', team: billing }),
		conversation('c5', '2026-01-01T00:00:00Z', { status: 'closed' })
	];
	const ids = (items: { conversationId: string }[]) => items.map((item) => item.conversationId);

	it('shows mine, nobody’s, everyone’s, one agent’s or one team’s conversations, with the other filters on top', () => {
		const filter = (assignment: Parameters<typeof inAssignmentView>[1]) =>
			ids(filterConversations(list, { assignment, myAccountId: 'acc_ada', status: 'all', unreadOnly: false, search: '' }, new Map()));
		expect(filter('mine')).toEqual(['c1', 'c4']);
		expect(filter('unassigned')).toEqual(['c3', 'c5']);
		expect(filter('all')).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
		expect(filter('agent:acc_ben')).toEqual(['c2']);
		expect(filter('team:team_billing')).toEqual(['c2', 'c3', 'c4']);
		expect(filter('team:team_other')).toEqual([]);
		expect(
			ids(
				filterConversations(
					list,
					{ assignment: 'mine', myAccountId: 'acc_ada', status: 'closed', unreadOnly: false, search: '' },
					new Map()
				)
			)
		).toEqual(['c4']);
	});

	it('shows the conversations where a note mentioned this agent (docs/inbox-api.md §4 "Mentions"), with the other filters on top', () => {
		const mentioned = new Set(['c2', 'c5']);
		const filter = (status: 'all' | 'closed') =>
			ids(filterConversations(list, { assignment: 'mentions', mentioned, status, unreadOnly: false, search: '' }, new Map()));
		expect(filter('all')).toEqual(['c2', 'c5']);
		expect(filter('closed')).toEqual(['c5']);
		expect(ids(filterConversations(list, { assignment: 'mentions', status: 'all', unreadOnly: false, search: '' }, new Map()))).toEqual([]);
	});

	it('counts the open conversations of each view', () => {
		expect(countAssignments(list, 'acc_ada')).toEqual({
			mine: 1,
			unassigned: 1,
			all: 3,
			byAgent: { acc_ada: 1, acc_ben: 1 },
			byTeam: { team_billing: 2 }
		});
		expect(countAssignments(list, 'acc_ben').mine).toBe(1);
		expect(countAssignments([], 'acc_ada')).toEqual({ mine: 0, unassigned: 0, all: 0, byAgent: {}, byTeam: {} });
	});
});

describe('lifecycle filter (docs/inbox-api.md §4 "Lifecycle")', () => {
	it('shows open, snoozed or resolved conversations, counts each, and leaves the others out of the assignment counts', () => {
		const list = [
			conversation('c1', '2026-01-03T00:00:00Z'),
			conversation('c2', '2026-01-02T00:00:00Z', { teamState: 'resolved', assignee: { accountId: 'acc_ada', displayName: 'Ada' } }),
			conversation('c3', '2026-01-01T00:00:00Z', { teamState: 'snoozed' })
		];
		const shown = (lifecycle: 'open' | 'snoozed' | 'resolved') =>
			filterConversations(list, { lifecycle, status: 'all', unreadOnly: false, search: '' }, new Map()).map((item) => item.conversationId);
		expect([shown('open'), shown('snoozed'), shown('resolved')]).toEqual([['c1'], ['c3'], ['c2']]);
		expect(countLifecycle(list)).toEqual({ open: 1, snoozed: 1, resolved: 1 });
		expect(countAssignments(list, 'acc_ada')).toEqual({ mine: 0, unassigned: 1, all: 1, byAgent: {}, byTeam: {} });
	});
});
