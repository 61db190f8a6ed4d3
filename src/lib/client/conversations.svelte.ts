/**
 * The conversation list of the inbox: every conversation of the inbox's view
 * (`GET /api/conversations`, pages of 200), kept live by `/api/events`, with the team's views (state,
 * assignee, label), filters, search, counts, and the text previews and customers' names this tab
 * decrypted. Plaintext previews and names live in memory only and go on lock.
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
import { LiveConversationList } from './live-conversation-list';
import type { ConversationCounts } from '../inbox-api/records';
import type { ConversationView } from './types';
import type { ServiceView } from './service-due';
import type { ServiceDue, TargetPolicy } from '../service-targets/targets';

const PAGE_SIZE = 200;
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
	#serverCounts = $state.raw<ConversationCounts | null>(null);
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
	/** The clock the deadlines are read by: moved on by the page and at each load, not at each live change. */
	now = $state(Date.now());
	/** Conversations due within the hour and overdue, now. */
	readonly serviceCounts = $derived.by(() => this.#read(() => this.#live.serviceCountsAt(this.now)));
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

	/** `myAccountId` is who "Mine" is; `mentioned`, where a note mentioned them (read live, for the Mentions view). */
	constructor(myAccountId = '', mentioned?: () => ReadonlySet<string>) {
		this.#myAccountId = myAccountId;
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

	/** The server's counts while pages are still on their way, else those of the rows loaded, live. */
	get counts(): FilterCounts {
		const server = this.#countsWhileLoading();
		return server ? { total: server.total, unread: server.unread } : this.#read(() => this.#live.counts);
	}

	/** Conversations in each of the team's states, live. */
	get lifecycleCounts(): Record<LifecycleFilter, number> {
		return this.#countsWhileLoading()?.lifecycle ?? this.#read(() => this.#live.lifecycleCounts);
	}

	/** Open conversations in each assignment view, live. */
	get assignmentCounts(): AssignmentCounts {
		const server = this.#countsWhileLoading();
		return server ? { ...server.assignment, byTeam: server.teams } : this.#read(() => this.#live.assignmentCounts);
	}

	/**
	 * The whole list's counts from the server (docs/inbox-api.md §4 "Counts", the same as the rows would
	 * give) until the last page arrived: the pills are right at the first page instead of after the last.
	 * Changes meanwhile show once every page is in, from the rows.
	 */
	#countsWhileLoading(): ConversationCounts | null {
		return this.#complete ? null : this.#serverCounts;
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
	/**
	 * Conversations upserted (live events, local reads) while a load runs: its pages may have been read
	 * before those changes, so these copies win over the pages' until the load ends.
	 */
	// eslint-disable-next-line svelte/prefer-svelte-reactivity -- read by the load only, never watched
	#changedDuringLoad = new Map<string, ConversationView>();

	get(conversationId: string): ConversationView | undefined {
		return this.#read(() => this.#live.get(conversationId));
	}

	/**
	 * Loads every page (first page shown at once); a later call restarts from scratch. `firstPage` hears
	 * the live event id the first page reflects, where a live stream resumes to miss nothing after it.
	 */
	async load(firstPage?: (liveEventId: number) => void): Promise<void> {
		const generation = ++this.generation;
		this.#changedDuringLoad.clear();
		this.#loading = true;
		this.#error = null;
		this.#complete = false;
		this.#serverCounts = null;
		// asked beside the first page; when they fail, the rows count as they come
		void countConversations().then(
			(counts) => {
				if (generation === this.generation && !this.#complete) this.#serverCounts = counts;
			},
			() => undefined
		);
		let cursor: string | null = null;
		try {
			do {
				const page = await listConversations({ limit: PAGE_SIZE, cursor });
				if (generation !== this.generation) return;
				// the first page replaces what was shown, later pages merge in; changes that came live meanwhile win
				if (cursor === null) this.#live.replaceAll(mergeSorted(page.data, [...this.#changedDuringLoad.values()]));
				else this.#live.addPage(page.data.filter((conversation) => !this.#changedDuringLoad.has(conversation.conversationId)));
				this.#version++;
				this.now = Date.now();
				if (cursor === null) firstPage?.(page.liveEventId);
				cursor = page.nextCursor;
			} while (cursor);
			this.#complete = true;
			this.#serverCounts = null;
		} catch (error) {
			if (generation === this.generation) this.#error = error;
		} finally {
			if (generation === this.generation) {
				this.#loading = false;
				this.#changedDuringLoad.clear();
			}
		}
	}

	/** A conversation from an event or a call, placed where its last activity puts it. */
	upsert(conversation: ConversationView): void {
		this.#live.upsert(conversation);
		this.#version++;
		if (this.#loading) this.#changedDuringLoad.set(conversation.conversationId, conversation);
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
		this.#changedDuringLoad.clear();
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
