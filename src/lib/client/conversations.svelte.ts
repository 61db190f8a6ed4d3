/**
 * The conversation list of the inbox: the conversations of the inbox's view (`GET /api/conversations`, a
 * page of 200 at first and more as the agent scrolls, with the whole list's counts), kept live by
 * `/api/events`, with the team's views (state, assignee, label), filters, search, counts, and the text
 * previews and customers' names this tab decrypted. Plaintext previews and names live in memory only and
 * go on lock.
 */
import { SvelteMap, SvelteSet } from 'svelte/reactivity';
import { countConversations, listConversations } from './api';
import {
	mergeSorted,
	NO_MENTIONS,
	previewText,
	type AssignmentCounts,
	type AssignmentView,
	type FilterCounts,
	type LifecycleFilter,
	type StatusFilter
} from './conversation-list';
import { LiveConversationList, noDrift, type CountDrift } from './live-conversation-list';
import type { ConversationCounts } from '../inbox-api/records';
import type { ConversationView } from './types';
import type { ServiceView } from './service-due';
import type { ServiceDue, TargetPolicy } from '../service-targets/targets';

const PAGE_SIZE = 200;
/** The next page is asked when fewer rows than this lie beyond the last one shown. */
const ROWS_AHEAD = 100;
/** While pages are still to come, the whole list's counts are asked at most this often. */
const COUNTS_REFRESH_MS = 10_000;
const PREVIEW_LENGTH = 140;
const NAME_LENGTH = 100;

export class ConversationStore {
	/** The list, its filtered rows and counts, each live change applied to one row (docs/inbox-api.md §4). */
	readonly #live: LiveConversationList;
	/** Moved on at each change of the live list, so whatever read it reads it again. */
	#version = $state(0);
	/**
	 * The text previews this tab decrypted, by conversation, set in place: a row reads its own, and a
	 * preview costs the same however many there are (a copy each would make thousands cost seconds).
	 */
	readonly #previews = new SvelteMap<string, string>();
	/** Customers' names from their decrypted profiles, by conversation (plaintext: gone on lock). */
	readonly #names = new SvelteMap<string, string>();
	/** The conversations with a draft in this browser (ids only), for the rows' marker. */
	readonly #drafts = new SvelteSet<string>();
	#loading = $state(false);
	#complete = $state(false);
	/** The server's counts of the whole list, with the rows' drift when they were asked. */
	#serverCounts = $state.raw<{ counts: CountDrift; drift: CountDrift; listed: number } | null>(null);
	readonly #paging: { pageSize: number; countsRefreshMs: number };
	#error = $state<unknown>(null);
	/** Who "Mine" is. */
	#myAccountId = '';
	/** Where a note mentioned them. */
	#mentioned: () => ReadonlySet<string> = () => NO_MENTIONS;
	/** The list's filters, bound by the page. */
	lifecycle = $state<LifecycleFilter>('open');
	/** A label id, or '' for any. */
	label = $state('');
	assignment = $state<AssignmentView>('all');
	status = $state<StatusFilter>('all');
	unreadOnly = $state(false);
	search = $state('');
	#policy = $state.raw<TargetPolicy | null>(null);
	/** The view by deadline. */
	service = $state<ServiceView>('');
	#now = $state(Date.now());
	/** The rows the filters let through, sorted like the list. */
	readonly visible = $derived.by(() =>
		this.#read(() =>
			this.#live.shown(
				{
					lifecycle: this.lifecycle,
					label: this.label || undefined,
					assignment: this.assignment,
					myAccountId: this.#myAccountId,
					mentioned: this.#mentioned(),
					status: this.status,
					unreadOnly: this.unreadOnly,
					search: this.search,
					service: this.service,
					now: this.now
				},
				this.#previews,
				this.#names
			)
		)
	);

	/**
	 * `myAccountId` is who "Mine" is; `mentioned`, where a note mentioned them (read live, for the Mentions
	 * view); `paging`, how many rows a page of the list brings and how often the counts may be asked again.
	 */
	constructor(
		myAccountId = '',
		mentioned?: () => ReadonlySet<string>,
		paging: { pageSize: number; countsRefreshMs: number } = { pageSize: PAGE_SIZE, countsRefreshMs: COUNTS_REFRESH_MS }
	) {
		this.#myAccountId = myAccountId;
		this.#paging = paging;
		this.#live = new LiveConversationList(myAccountId);
		if (mentioned) this.#mentioned = mentioned;
	}

	/** What `read` gives, read again at each change of the live list (whoever calls this depends on its version). */
	#read<T>(read: () => T): T {
		void this.#version;
		return read();
	}

	/** Sorted by last activity; replaced, never mutated, so 10,000 rows stay cheap to track. */
	get items(): readonly ConversationView[] {
		return this.#read(() => this.#live.items);
	}

	/** The whole list's counts: the server's with the changes since while pages are still to come, else the rows' own. */
	get counts(): FilterCounts {
		const server = this.#serverCountsNow;
		return server ? server.filter : this.#read(() => this.#live.counts);
	}

	/** Conversations in each of the team's states, live. */
	get lifecycleCounts(): Record<LifecycleFilter, number> {
		return this.#serverCountsNow?.lifecycle ?? this.#read(() => this.#live.lifecycleCounts);
	}

	/** Open conversations in each assignment view, live. */
	get assignmentCounts(): AssignmentCounts {
		return this.#serverCountsNow?.assignment ?? this.#read(() => this.#live.assignmentCounts);
	}

	/** Conversations due within the hour and overdue, now. */
	get serviceCounts(): Record<'breaching' | 'overdue', number> {
		return this.#serverCountsNow?.service ?? this.#read(() => this.#live.serviceCountsAt(this.now));
	}

	/**
	 * The whole list's counts while some of its pages are not loaded (docs/inbox-api.md §4 "Counts"): the
	 * server's, plus what the loaded rows' changes did to them since they were asked.
	 */
	readonly #serverCountsNow = $derived.by((): CountDrift | null => {
		if (this.#complete || !this.#serverCounts) return null;
		const { counts, drift, listed } = this.#serverCounts;
		return this.#read(() => withDrift(counts, this.#live.drift, listed === this.#listed ? drift : noDrift()));
	});

	/**
	 * The clock the deadlines are read by: moved on by the page and at each load, not at each live change.
	 * While pages are still to come, the server's deadline counts are asked again with it.
	 */
	get now(): number {
		return this.#now;
	}

	set now(now: number) {
		this.#now = now;
		if (this.#serverCounts) this.#askCountsSoon();
	}

	/** The team's service targets (docs/service-targets.md), null when it has none. */
	get policy(): TargetPolicy | null {
		return this.#policy;
	}

	set policy(policy: TargetPolicy | null) {
		this.#live.setPolicy(policy);
		this.#policy = policy;
		this.#version++;
	}

	/** An open conversation's next deadline. */
	dueOf(conversationId: string): ServiceDue | undefined {
		return this.#read(() => this.#live.dueOf(conversationId));
	}

	get drafts(): ReadonlySet<string> {
		return this.#drafts;
	}

	/** The conversations with a stored draft, as the key store lists them. */
	draftsAre(conversationIds: readonly string[]): void {
		this.#drafts.clear();
		for (const id of conversationIds) this.#drafts.add(id);
	}

	/** A draft was written (`kept`) or removed. */
	draftChanged(conversationId: string, kept: boolean): void {
		if (kept) this.#drafts.add(conversationId);
		else this.#drafts.delete(conversationId);
	}

	get names(): ReadonlyMap<string, string> {
		return this.#names;
	}

	/** The text previews this tab decrypted, by conversation. */
	get previews(): ReadonlyMap<string, string> {
		return this.#previews;
	}

	get loading(): boolean {
		return this.#loading;
	}

	/** Every page has arrived. */
	get complete(): boolean {
		return this.#complete;
	}

	get error(): unknown {
		return this.#error;
	}

	private generation = 0;
	/** Moved on each time a first page replaces the list (and with it the rows' drift). */
	#listed = 0;
	/** Where the next page starts; null once the last page arrived or before the first. */
	#cursor: string | null = null;
	/**
	 * Conversations upserted (live events, local reads) since the load began: pages read before those
	 * changes come later, so these copies win over the pages' until every page is in.
	 */
	// eslint-disable-next-line svelte/prefer-svelte-reactivity -- read by the loads only, never watched
	#changedSinceLoad = new Map<string, ConversationView>();
	#countsTimer: ReturnType<typeof setTimeout> | undefined;
	#countsAskedAt = 0;

	get(conversationId: string): ConversationView | undefined {
		return this.#read(() => this.#live.get(conversationId));
	}

	/**
	 * Loads the first page, at once with the whole list's counts; the other pages come as the agent
	 * scrolls (`showingUpTo`). A later call restarts from scratch. `firstPage` hears the live event id the
	 * first page reflects, where a live stream resumes to miss nothing after it.
	 */
	async load(firstPage?: (liveEventId: number) => void): Promise<void> {
		const generation = ++this.generation;
		this.#changedSinceLoad.clear();
		this.#loading = true;
		this.#error = null;
		this.#complete = false;
		this.#cursor = null;
		this.#serverCounts = null;
		this.#askCounts();
		try {
			const page = await listConversations({ limit: this.#paging.pageSize, cursor: null });
			if (generation !== this.generation) return;
			// the first page replaces what was shown; changes that came live meanwhile win
			this.#live.replaceAll(mergeSorted(page.data, [...this.#changedSinceLoad.values()]));
			this.#listed++;
			this.#version++;
			this.#now = Date.now();
			firstPage?.(page.liveEventId);
			this.#pageArrived(page.nextCursor);
		} catch (error) {
			if (generation === this.generation) this.#error = error;
		} finally {
			if (generation === this.generation) this.#loading = false;
		}
	}

	/**
	 * The page shows the rows up to `index` of `visible`: the next page is asked when fewer than a page
	 * of rows lie beyond, so a filter that lets few rows through keeps loading until the window is full.
	 * Not after a failed page: the next load (a resync, a reload) starts again.
	 */
	showingUpTo(index: number): void {
		if (this.#complete || this.#loading || this.#error || this.#cursor === null) return;
		if (this.visible.length - index <= ROWS_AHEAD) void this.#loadMore(this.#cursor);
	}

	/** After a page failed: the next one is asked again (the first, when that was the one). */
	retryPage(): void {
		if (this.#loading) return;
		this.#error = null;
		if (this.#cursor === null) void this.load();
		else void this.#loadMore(this.#cursor);
	}

	async #loadMore(cursor: string): Promise<void> {
		const generation = this.generation;
		this.#loading = true;
		try {
			const page = await listConversations({ limit: this.#paging.pageSize, cursor });
			if (generation !== this.generation) return;
			this.#live.addPage(page.data.filter((conversation) => !this.#changedSinceLoad.has(conversation.conversationId)));
			this.#version++;
			this.#pageArrived(page.nextCursor);
		} catch (error) {
			if (generation === this.generation) this.#error = error;
		} finally {
			if (generation === this.generation) this.#loading = false;
		}
	}

	#pageArrived(nextCursor: string | null): void {
		this.#cursor = nextCursor;
		if (nextCursor !== null) return;
		this.#complete = true;
		this.#serverCounts = null;
		this.#changedSinceLoad.clear();
		clearTimeout(this.#countsTimer);
		this.#countsTimer = undefined;
	}

	/** Asks the whole list's counts, noting the rows' drift they are to be read with. */
	#askCounts(): void {
		const generation = this.generation;
		const asked = { drift: this.#live.drift, listed: this.#listed };
		this.#countsAskedAt = Date.now();
		// when they fail, the counts are the rows' until the next ask
		void countConversations().then(
			(counts) => {
				if (generation === this.generation && !this.#complete) this.#serverCounts = { counts: fromServer(counts), ...asked };
			},
			() => undefined
		);
	}

	/** The counts are asked again, at most every few seconds, while pages are still to come. */
	#askCountsSoon(): void {
		if (this.#complete || this.#countsTimer !== undefined) return;
		const wait = Math.max(0, this.#countsAskedAt + this.#paging.countsRefreshMs - Date.now());
		this.#countsTimer = setTimeout(() => {
			this.#countsTimer = undefined;
			if (!this.#complete) this.#askCounts();
		}, wait);
	}

	/**
	 * A conversation from an event or a call, placed where its last activity puts it. One the list did
	 * not have changed the whole list's counts by an unknown share: they are asked again.
	 */
	upsert(conversation: ConversationView): void {
		const known = this.#live.get(conversation.conversationId) !== undefined;
		this.#live.upsert(conversation);
		this.#version++;
		if (this.#complete) return;
		this.#changedSinceLoad.set(conversation.conversationId, conversation);
		if (!known) this.#askCountsSoon();
	}

	/** Sets the unread count to zero locally once the read receipt went through. */
	markRead(conversationId: string): void {
		const item = this.get(conversationId);
		if (item && item.unreadCount !== 0) this.upsert({ ...item, unreadCount: 0 });
	}

	setPreview(conversationId: string, text: string): void {
		this.#previews.set(conversationId, previewText(text, PREVIEW_LENGTH));
		this.#textChanged(conversationId);
	}

	setName(conversationId: string, name: string): void {
		this.#names.set(conversationId, previewText(name, NAME_LENGTH));
		this.#textChanged(conversationId);
	}

	/** A search shown may find the conversation now, or no longer: the rows shown are read again. */
	#textChanged(conversationId: string): void {
		if (this.#live.textChanged(conversationId, this.#previews, this.#names)) this.#version++;
	}

	/** Forgets every decrypted preview and name (on lock and sign-out). */
	forgetPlaintext(): void {
		this.#live.forgetText();
		this.#version++;
		this.#previews.clear();
		this.#names.clear();
	}

	clear(): void {
		this.generation++;
		this.#changedSinceLoad.clear();
		this.#cursor = null;
		clearTimeout(this.#countsTimer);
		this.#countsTimer = undefined;
		this.#live.replaceAll([]);
		this.#version++;
		this.#serverCounts = null;
		this.#drafts.clear();
		this.#previews.clear();
		this.#names.clear();
		this.#complete = false;
		this.#loading = false;
	}
}

/** The server's counts (docs/inbox-api.md §4 "Counts") in the shape the rows' own take. */
function fromServer(counts: ConversationCounts): CountDrift {
	return {
		filter: { total: counts.total, unread: counts.unread },
		lifecycle: counts.lifecycle,
		assignment: { ...counts.assignment, byTeam: counts.teams },
		service: counts.service
	};
}

/** `counts` asked when the rows' drift was `then`, with what the rows changed since. */
function withDrift(counts: CountDrift, now: CountDrift, then: CountDrift): CountDrift {
	// a count per account or team counting nothing is absent, as the rows' own counts leave it
	const add = <K extends string>(base: Record<K, number>, plus: Record<K, number>, minus: Record<K, number>, sparse = false) => {
		const sum = { ...base };
		for (const key of new Set([...Object.keys(plus), ...Object.keys(minus)]) as Set<K>) {
			const value = (sum[key] ?? 0) + (plus[key] ?? 0) - (minus[key] ?? 0);
			if (sparse && value === 0) delete sum[key];
			else sum[key] = value;
		}
		return sum;
	};
	const { assignment } = counts;
	return {
		filter: {
			total: add(counts.filter.total, now.filter.total, then.filter.total),
			unread: add(counts.filter.unread, now.filter.unread, then.filter.unread)
		},
		lifecycle: add(counts.lifecycle, now.lifecycle, then.lifecycle),
		assignment: {
			mine: assignment.mine + now.assignment.mine - then.assignment.mine,
			unassigned: assignment.unassigned + now.assignment.unassigned - then.assignment.unassigned,
			all: assignment.all + now.assignment.all - then.assignment.all,
			byAgent: add(assignment.byAgent, now.assignment.byAgent, then.assignment.byAgent, true),
			byTeam: add(assignment.byTeam, now.assignment.byTeam, then.assignment.byTeam, true)
		},
		service: add(counts.service, now.service, then.service)
	};
}
