/**
 * The conversation list's pure logic: the order (last activity first), the assignment views (mine,
 * unassigned, all, one agent's, one team's, mentions), filters by status and unread, search, per-filter
 * counts and each conversation's share of them, and moving one changed conversation in a sorted list of
 * 10,000 without sorting it again (docs/inbox-api.md §4).
 */
import type { ConversationView, ConversationStatus } from './types';

export type StatusFilter = 'all' | ConversationStatus;

export const STATUS_FILTERS: readonly StatusFilter[] = ['all', 'active', 'awaiting_key', 'pending', 'closed'];

/** Negative when `a` comes first: newer activity first, then by id (descending, as the server pages them), so the order is total. */
export function compareConversations(a: ConversationView, b: ConversationView): number {
	if (a.lastActivityAt !== b.lastActivityAt) return a.lastActivityAt < b.lastActivityAt ? 1 : -1;
	return a.conversationId < b.conversationId ? 1 : a.conversationId > b.conversationId ? -1 : 0;
}

/** Two sorted lists with no conversation in both, as one sorted list, in one pass. */
export function mergeSortedLists(a: readonly ConversationView[], b: readonly ConversationView[]): ConversationView[] {
	const merged: ConversationView[] = new Array(a.length + b.length);
	let i = 0;
	let j = 0;
	for (let at = 0; at < merged.length; at++)
		merged[at] = j >= b.length || (i < a.length && compareConversations(a[i], b[j]) <= 0) ? a[i++] : b[j++];
	return merged;
}

/** Where `conversation` goes in the sorted `list` (the index of its copy there, if the list has it), by binary search. */
export function sortedIndex(list: readonly ConversationView[], conversation: ConversationView): number {
	let low = 0;
	let high = list.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (compareConversations(list[middle], conversation) < 0) low = middle + 1;
		else high = middle;
	}
	return low;
}

/**
 * A new sorted list with `previous` (the copy the list holds, if any) taken out and `next` (if any) put
 * in: two binary searches compare a few dozen rows, and one copy of the array moves the others without
 * reading them. The same list when it neither holds `previous` nor gets `next`.
 */
export function replaceSorted(
	list: readonly ConversationView[],
	previous: ConversationView | undefined,
	next: ConversationView | undefined
): ConversationView[] {
	const at = previous ? sortedIndex(list, previous) : -1;
	const held = at >= 0 && list[at]?.conversationId === previous?.conversationId;
	if (!held && !next) return list as ConversationView[];
	const result = list.slice();
	if (held) result.splice(at, 1);
	if (next) result.splice(sortedIndex(result, next), 0, next);
	return result;
}

/** Merges a page from the server into a sorted list (later copies of a conversation win). */
export function mergeSorted(list: readonly ConversationView[], page: readonly ConversationView[]): ConversationView[] {
	const byId = new Map(list.map((item) => [item.conversationId, item]));
	for (const item of page) byId.set(item.conversationId, item);
	return [...byId.values()].sort(compareConversations);
}

/** No conversation mentions this agent. */
export const NO_MENTIONS: ReadonlySet<string> = new Set();

/**
 * Whose conversations the list shows: this agent's, nobody's, everyone's, one agent's (`agent:` + account
 * id), one team's (`team:` + team id, §4 "Teams"), or those where a note mentioned this agent (§4 "Mentions").
 */
export type AssignmentView = 'mine' | 'unassigned' | 'all' | 'mentions' | `agent:${string}` | `team:${string}`;

export function inAssignmentView(
	item: ConversationView,
	view: AssignmentView,
	myAccountId: string,
	mentioned: ReadonlySet<string> = NO_MENTIONS
): boolean {
	if (view === 'all') return true;
	if (view === 'mentions') return mentioned.has(item.conversationId);
	if (view === 'unassigned') return item.assignee === null;
	if (view.startsWith('team:')) return item.team?.teamId === view.slice('team:'.length);
	const accountId = view === 'mine' ? myAccountId : view.slice('agent:'.length);
	return item.assignee?.accountId === accountId;
}

export interface AssignmentCounts {
	mine: number;
	unassigned: number;
	all: number;
	/** Open conversations per assignee's account id. */
	byAgent: Record<string, number>;
	/** Open conversations per team id. */
	byTeam: Record<string, number>;
}

/** Open conversations (not closed, resolved or snoozed) in each assignment view. */
export function countAssignments(list: readonly ConversationView[], myAccountId: string): AssignmentCounts {
	const counts: AssignmentCounts = { mine: 0, unassigned: 0, all: 0, byAgent: {}, byTeam: {} };
	for (const item of list) tallyAssignment(counts, item, myAccountId, 1);
	return counts;
}

/** Adds (`by` 1) or takes away (`by` -1) one conversation's share of the assignment counts, in place. */
export function tallyAssignment(counts: AssignmentCounts, item: ConversationView, myAccountId: string, by: 1 | -1): void {
	if (item.status === 'closed' || item.teamState !== 'open') return;
	counts.all += by;
	const team = item.team?.teamId;
	if (team !== undefined) tallyKey(counts.byTeam, team, by);
	const assignee = item.assignee?.accountId;
	if (assignee === undefined) counts.unassigned += by;
	else {
		tallyKey(counts.byAgent, assignee, by);
		if (assignee === myAccountId) counts.mine += by;
	}
}

/** A count per key where a key counting nothing is absent. */
function tallyKey(counts: Record<string, number>, key: string, by: 1 | -1): void {
	const count = (counts[key] ?? 0) + by;
	if (count === 0) delete counts[key];
	else counts[key] = count;
}

/** Which of the team's states the list shows (docs/inbox-api.md §4 "Lifecycle"). */
export const LIFECYCLE_FILTERS = ['open', 'snoozed', 'resolved'] as const;
export type LifecycleFilter = (typeof LIFECYCLE_FILTERS)[number];

export interface ListFilter {
	/** Only conversations with this label. */
	label?: string;
	/** The team's state; every state when absent. */
	lifecycle?: LifecycleFilter;
	/** Whose conversations; `all` when absent. */
	assignment?: AssignmentView;
	/** Who `mine` is. */
	myAccountId?: string;
	/** The conversations where a note mentioned this agent, for `mentions`. */
	mentioned?: ReadonlySet<string>;
	status: StatusFilter;
	unreadOnly: boolean;
	/** Matched against the id, the customer's name and the text previews seen in this session. */
	search: string;
}

export function filterConversations(
	list: readonly ConversationView[],
	filter: ListFilter,
	previews: ReadonlyMap<string, string>,
	names: ReadonlyMap<string, string> = NO_PREVIEWS
): ConversationView[] {
	const matches = conversationMatcher(filter, previews, names);
	return matches ? list.filter(matches) : (list as ConversationView[]);
}

/** Whether one conversation passes the filter; null when the filter lets every conversation through. */
export function conversationMatcher(
	filter: ListFilter,
	previews: ReadonlyMap<string, string>,
	names: ReadonlyMap<string, string> = NO_PREVIEWS
): ((item: ConversationView) => boolean) | null {
	const needle = filter.search.trim().toLowerCase();
	const assignment = filter.assignment ?? 'all';
	if (assignment === 'all' && !filter.label && !filter.lifecycle && filter.status === 'all' && !filter.unreadOnly && needle === '')
		return null;
	return (item) => {
		if (filter.lifecycle && item.teamState !== filter.lifecycle) return false;
		if (filter.label && !item.labels?.includes(filter.label)) return false;
		if (!inAssignmentView(item, assignment, filter.myAccountId ?? '', filter.mentioned)) return false;
		if (filter.status !== 'all' && item.status !== filter.status) return false;
		if (filter.unreadOnly && item.unreadCount === 0) return false;
		if (needle === '') return true;
		const label = item.conversationId.toLowerCase();
		return (
			label.includes(needle) ||
			label.replace(/^conv_/, '').includes(needle.replace(/\s+/g, '')) ||
			(previews.get(item.conversationId)?.toLowerCase().includes(needle) ?? false) ||
			(names.get(item.conversationId)?.toLowerCase().includes(needle) ?? false)
		);
	};
}

export interface FilterCounts {
	/** Conversations in each status filter. */
	total: Record<StatusFilter, number>;
	/** Conversations with unread messages in each status filter. */
	unread: Record<StatusFilter, number>;
}

export function countConversations(list: readonly ConversationView[]): FilterCounts {
	const zero = () => ({ all: 0, active: 0, awaiting_key: 0, pending: 0, closed: 0 }) as Record<StatusFilter, number>;
	const counts: FilterCounts = { total: zero(), unread: zero() };
	for (const item of list) tallyConversation(counts, item, 1);
	return counts;
}

/** Adds (`by` 1) or takes away (`by` -1) one conversation's share of the status and unread counts, in place. */
export function tallyConversation(counts: FilterCounts, item: ConversationView, by: 1 | -1): void {
	counts.total.all += by;
	counts.total[item.status] += by;
	if (item.unreadCount > 0) {
		counts.unread.all += by;
		counts.unread[item.status] += by;
	}
}

/** A preview or name as a row shows it: one line, at most `length` characters. */
export function previewText(text: string, length = 140): string {
	return text.replace(/\s+/g, ' ').slice(0, length);
}

export const NO_PREVIEWS: ReadonlyMap<string, string> = new Map();

export const STATUS_LABELS: Record<StatusFilter, string> = {
	all: 'All',
	active: 'Active',
	awaiting_key: 'Awaiting key',
	pending: 'Pending',
	closed: 'Closed'
};

/** Conversations in each of the team's states. */
export function countLifecycle(list: readonly ConversationView[]): Record<LifecycleFilter, number> {
	const counts = { open: 0, snoozed: 0, resolved: 0 };
	for (const item of list) counts[item.teamState]++;
	return counts;
}
