/**
 * This agent's mentions (docs/inbox-api.md §4 "Mentions"): the conversations where a note mentioned it,
 * read from the server and kept current by `mention.created` and `mention.read` (the latter from its
 * other tabs), the in-app notice of the newest mention, and the read mark sent when the agent opens a
 * conversation with unread mentions. The read state is the server's, so every tab shows the same.
 */
import { listMentions, readMentions } from './api';
import { mentionedConversations, withMention, withMentionsRead } from './mentions';
import type { MentionEvent, MentionSummary } from '../inbox-api/records';

export interface MentionApi {
	listMentions(): Promise<{ data: MentionSummary[] }>;
	readMentions(conversationId: string): Promise<void>;
}

export class MentionStore {
	#items = $state.raw<MentionSummary[]>([]);
	#notice = $state.raw<MentionEvent | null>(null);
	#loaded = false;
	/** The conversations where this agent was mentioned. */
	readonly conversationIds: ReadonlySet<string> = $derived(mentionedConversations(this.#items));
	/** How many of them hold a mention this agent has not seen. */
	readonly unread: number = $derived(this.#items.filter((item) => item.unreadCount > 0).length);

	constructor(private readonly api: MentionApi = { listMentions, readMentions }) {}

	/** Newest mention first. */
	get items(): readonly MentionSummary[] {
		return this.#items;
	}

	/** The newest mention this tab heard of, until dismissed or its conversation opened. */
	get notice(): MentionEvent | null {
		return this.#notice;
	}

	/** The unread mentions of one conversation (0 when none). */
	unreadIn(conversationId: string): number {
		return this.#items.find((item) => item.conversationId === conversationId)?.unreadCount ?? 0;
	}

	/** Reads the list from the server (at start, and after a resync). */
	async load(): Promise<void> {
		this.#items = (await this.api.listMentions()).data;
		this.#loaded = true;
	}

	/** A note mentioned this agent (`mention.created`). */
	mentioned(event: MentionEvent): void {
		this.#items = withMention(this.#items, event);
		this.#notice = event;
	}

	/**
	 * The agent opened the conversation: its mentions are read here at once, and on the server unless this
	 * tab knows there are none unread (the server tells the other tabs).
	 */
	async open(conversationId: string): Promise<void> {
		if (this.#notice?.conversationId === conversationId) this.#notice = null;
		if (this.#loaded && this.unreadIn(conversationId) === 0) return;
		this.#items = withMentionsRead(this.#items, conversationId);
		await this.api.readMentions(conversationId);
	}

	/** Another tab of this agent opened the conversation (`mention.read`). */
	readElsewhere(conversationId: string): void {
		this.#items = withMentionsRead(this.#items, conversationId);
		if (this.#notice?.conversationId === conversationId) this.#notice = null;
	}

	dismissNotice(): void {
		this.#notice = null;
	}

	clear(): void {
		this.#loaded = false;
		this.#items = [];
		this.#notice = null;
	}
}
