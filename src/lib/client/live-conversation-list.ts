/**
 * The conversation list kept live (docs/inbox-api.md §4): the sorted list, the list shown through the
 * filters, and every count. A page or a resync replaces the whole list and counts it once; each live
 * change then moves one row by binary search, takes the old copy's share out of the counts and puts the
 * new copy's in, and takes one row out of or puts it into the shown list. The whole shown list is
 * filtered again only when the filter changes, and the deadline counts only when the clock or the
 * targets do. Every list and count is a new value after a change, for the page to notice.
 */
import {
	compareConversations,
	conversationMatcher,
	countAssignments,
	countConversations,
	countLifecycle,
	filterConversations,
	mergeSortedLists,
	replaceSorted,
	tallyAssignment,
	tallyConversation,
	type AssignmentCounts,
	type FilterCounts,
	type LifecycleFilter,
	type ListFilter
} from './conversation-list';
import { conversationDue, countServiceViews, dueByConversation, inServiceView, tallyServiceView, type ServiceView } from './service-due';
import type { ServiceDue, TargetPolicy } from '../service-targets/targets';
import type { ConversationView } from './types';

/** The list's filters with the view by deadline, read at `now`. */
export interface ShownFilter extends ListFilter {
	service: ServiceView;
	now: number;
}

type ServiceCounts = Record<'breaching' | 'overdue', number>;

/**
 * What the conversations changed in place did to the counts since the list was last replaced: added to
 * counts the server gave for the whole list, they follow the rows' changes (docs/inbox-api.md §4 "Counts").
 * The deadline counts are read at the time of each change.
 */
export interface CountDrift {
	filter: FilterCounts;
	lifecycle: Record<LifecycleFilter, number>;
	assignment: AssignmentCounts;
	service: ServiceCounts;
}

export function noDrift(): CountDrift {
	return {
		filter: countConversations([]),
		lifecycle: countLifecycle([]),
		assignment: countAssignments([], ''),
		service: { breaching: 0, overdue: 0 }
	};
}

/** What the shown list was filtered by: a filter that differs in none of these shows the same rows. */
const NO_FILTER: ShownFilter = { status: 'all', unreadOnly: false, search: '', service: '', now: 0 };

function filterKey(filter: ShownFilter, previews: ReadonlyMap<string, string>, names: ReadonlyMap<string, string>): unknown[] {
	const searching = filter.search.trim() !== '';
	return [
		filter.lifecycle,
		filter.label,
		filter.assignment ?? 'all',
		filter.myAccountId,
		filter.assignment === 'mentions' ? filter.mentioned : undefined,
		filter.status,
		filter.unreadOnly,
		filter.search.trim().toLowerCase(),
		filter.service,
		filter.service === '' ? undefined : filter.now,
		searching ? previews : undefined,
		searching ? names : undefined
	];
}

const sameKey = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((part, index) => part === b[index]);

type Shares = Omit<CountDrift, 'service'>;

/** `counts` with `previous`'s share taken out (when given) and `next`'s put in, as a new value. */
function movedShares(counts: Shares, previous: ConversationView | undefined, next: ConversationView, myAccountId: string): Shares {
	const { filter, lifecycle, assignment } = counts;
	const moved: Shares = {
		filter: { total: { ...filter.total }, unread: { ...filter.unread } },
		lifecycle: { ...lifecycle },
		assignment: { ...assignment, byAgent: { ...assignment.byAgent }, byTeam: { ...assignment.byTeam } }
	};
	if (previous) {
		tallyConversation(moved.filter, previous, -1);
		moved.lifecycle[previous.teamState]--;
		tallyAssignment(moved.assignment, previous, myAccountId, -1);
	}
	tallyConversation(moved.filter, next, 1);
	moved.lifecycle[next.teamState]++;
	tallyAssignment(moved.assignment, next, myAccountId, 1);
	return moved;
}

export class LiveConversationList {
	#items: readonly ConversationView[] = [];
	readonly #byId = new Map<string, ConversationView>();
	#counts: FilterCounts = countConversations([]);
	#lifecycleCounts: Record<LifecycleFilter, number> = countLifecycle([]);
	#assignmentCounts: AssignmentCounts;
	#policy: TargetPolicy | null = null;
	/** Each open conversation's next deadline; changed in place, one entry per change. */
	#dues = new Map<string, ServiceDue>();
	/** The deadline counts at `#serviceCountsAt`, or null when they are to be counted again. */
	#serviceCounts: ServiceCounts | null = null;
	#serviceCountsAt = 0;
	#shown: readonly ConversationView[] = [];
	/** The filter `#shown` went through, or null when it is to be filtered again. */
	#shownKey: unknown[] | null = null;
	#matches: (item: ConversationView) => boolean = () => true;
	/** The filter lets every conversation through: the shown list is the list. */
	#showsEverything = true;
	#filter: ShownFilter = { ...NO_FILTER };
	#drift: CountDrift = noDrift();

	constructor(private readonly myAccountId = '') {
		this.#assignmentCounts = countAssignments([], myAccountId);
	}

	/** Sorted by last activity. */
	get items(): readonly ConversationView[] {
		return this.#items;
	}

	get counts(): FilterCounts {
		return this.#counts;
	}

	get lifecycleCounts(): Record<LifecycleFilter, number> {
		return this.#lifecycleCounts;
	}

	get assignmentCounts(): AssignmentCounts {
		return this.#assignmentCounts;
	}

	get(conversationId: string): ConversationView | undefined {
		return this.#byId.get(conversationId);
	}

	/** The counts' change from conversations changed in place since the last `replaceAll`; a new value after each. */
	get drift(): CountDrift {
		return this.#drift;
	}

	dueOf(conversationId: string): ServiceDue | undefined {
		return this.#dues.get(conversationId);
	}

	/** A sorted list from a page load or a resync, counted and filtered from scratch. */
	replaceAll(sorted: readonly ConversationView[]): void {
		this.#items = sorted;
		this.#byId.clear();
		for (const item of sorted) this.#byId.set(item.conversationId, item);
		this.#counts = countConversations(sorted);
		this.#lifecycleCounts = countLifecycle(sorted);
		this.#assignmentCounts = countAssignments(sorted, this.myAccountId);
		this.#drift = noDrift();
		this.#countDuesAgain();
	}

	/**
	 * A further page of a load: the rows the list has not yet are merged in, counted and filtered by
	 * themselves in one pass over the list (a page costs its rows, not the list); a row it has already
	 * is taken like a live change.
	 */
	addPage(rows: readonly ConversationView[]): void {
		const fresh = new Map<string, ConversationView>();
		for (const row of rows) {
			if (this.#byId.has(row.conversationId)) this.upsert(row);
			else fresh.set(row.conversationId, row);
		}
		if (fresh.size === 0) return;
		const sorted = [...fresh.values()].sort(compareConversations);
		this.#items = mergeSortedLists(this.#items, sorted);
		for (const row of sorted) {
			this.#byId.set(row.conversationId, row);
			this.#recount(undefined, row);
			this.#redue(row);
		}
		if (this.#shownKey) this.#shown = this.#showsEverything ? this.#items : mergeSortedLists(this.#shown, sorted.filter(this.#matches));
	}

	/** The team's service targets changed: every deadline is read again. */
	setPolicy(policy: TargetPolicy | null): void {
		if (policy === this.#policy) return;
		this.#policy = policy;
		this.#countDuesAgain();
	}

	#countDuesAgain(): void {
		this.#dues = dueByConversation(this.#items, this.#policy);
		this.#serviceCounts = null;
		this.#shownKey = null;
	}

	/** Conversations due within the hour and overdue at `now`, counted again only when `now` moved. */
	serviceCountsAt(now: number): ServiceCounts {
		if (this.#serviceCounts === null || now !== this.#serviceCountsAt) {
			this.#serviceCounts = countServiceViews(this.#dues, now);
			this.#serviceCountsAt = now;
		}
		return this.#serviceCounts;
	}

	/** The conversations that pass `filter`, filtered again only when it differs from the last one. */
	shown(filter: ShownFilter, previews: ReadonlyMap<string, string>, names: ReadonlyMap<string, string>): readonly ConversationView[] {
		const key = filterKey(filter, previews, names);
		if (this.#shownKey && sameKey(key, this.#shownKey)) return this.#shown;
		this.#filter = filter;
		this.#showsEverything = filter.service === '' && conversationMatcher(filter, previews, names) === null;
		this.#matches = this.#matcherFor(filter, previews, names);
		this.#shown = filter.service === '' ? filterConversations(this.#items, filter, previews, names) : this.#items.filter(this.#matches);
		this.#shownKey = key;
		return this.#shown;
	}

	/** A conversation from an event or a call: one row moved, its shares of the counts swapped. */
	upsert(next: ConversationView): void {
		const previous = this.#byId.get(next.conversationId);
		this.#byId.set(next.conversationId, next);
		this.#items = replaceSorted(this.#items, previous, next);
		if (previous) this.#redrift(previous, next);
		this.#recount(previous, next);
		this.#redue(next);
		this.#reshow(previous, next);
	}

	/**
	 * One conversation's decrypted preview or customer's name changed: a search may now find it, or no
	 * longer. Whether the shown rows were worked out again (only while a search is shown).
	 */
	textChanged(conversationId: string, previews: ReadonlyMap<string, string>, names: ReadonlyMap<string, string>): boolean {
		const searching = this.#filter.search.trim() !== '';
		const item = this.#byId.get(conversationId);
		if (!searching || !this.#shownKey || !item) return false;
		// the matcher reads the maps it was made with: only other maps need a new one
		const key = filterKey(this.#filter, previews, names);
		if (!sameKey(key, this.#shownKey)) {
			this.#shownKey = key;
			this.#matches = this.#matcherFor(this.#filter, previews, names);
		}
		this.#reshow(item, item);
		return true;
	}

	/**
	 * The decrypted previews and names were forgotten (lock, sign-out): nothing filtered by them, nor
	 * the matcher that holds them, is kept; the next `shown` filters from scratch.
	 */
	forgetText(): void {
		this.#shownKey = null;
		this.#matches = () => true;
		this.#filter = { ...NO_FILTER };
	}

	#matcherFor(filter: ShownFilter, previews: ReadonlyMap<string, string>, names: ReadonlyMap<string, string>) {
		const matches = conversationMatcher(filter, previews, names);
		return (item: ConversationView) =>
			(matches?.(item) ?? true) && inServiceView(filter.service, this.#dues.get(item.conversationId), filter.now);
	}

	#recount(previous: ConversationView | undefined, next: ConversationView): void {
		const moved = movedShares(
			{ filter: this.#counts, lifecycle: this.#lifecycleCounts, assignment: this.#assignmentCounts },
			previous,
			next,
			this.myAccountId
		);
		this.#counts = moved.filter;
		this.#lifecycleCounts = moved.lifecycle;
		this.#assignmentCounts = moved.assignment;
	}

	#redrift(previous: ConversationView, next: ConversationView): void {
		const service = { ...this.#drift.service };
		const now = Date.now();
		const before = this.#dues.get(previous.conversationId);
		const after = conversationDue(next, this.#policy);
		if (before) tallyServiceView(service, before, now, -1);
		if (after) tallyServiceView(service, after, now, 1);
		this.#drift = { ...movedShares(this.#drift, previous, next, this.myAccountId), service };
	}

	#redue(next: ConversationView): void {
		const previous = this.#dues.get(next.conversationId);
		const due = conversationDue(next, this.#policy);
		if (due) this.#dues.set(next.conversationId, due);
		else this.#dues.delete(next.conversationId);
		if (this.#serviceCounts === null) return;
		const counts = { ...this.#serviceCounts };
		if (previous) tallyServiceView(counts, previous, this.#serviceCountsAt, -1);
		if (due) tallyServiceView(counts, due, this.#serviceCountsAt, 1);
		this.#serviceCounts = counts;
	}

	#reshow(previous: ConversationView | undefined, next: ConversationView): void {
		if (!this.#shownKey) return;
		this.#shown = this.#showsEverything ? this.#items : replaceSorted(this.#shown, previous, this.#matches(next) ? next : undefined);
	}
}
