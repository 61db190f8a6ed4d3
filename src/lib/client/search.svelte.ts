/**
 * Search from the page (docs/search.md): queries go to the worker's index; the history pass indexes
 * what this agent can read — each conversation from its newest message back to its first, later only
 * what came after — one conversation at a time, with progress; conversations the agent can no longer
 * read are forgotten. The page sees results (snippets), never the index.
 */
import type { CryptoWorkerClient } from '../crypto-worker/client';
import type { SearchHit } from '../search/message-index';
import { v1 } from '../wire/v1';
import { v1Call } from './proxy';
import { itemsToDecrypt, NOTHING_SHOWN, toWorkerItem } from './thread-messages';
import type { ConversationView } from './types';

export type { SearchHit, SnippetPart } from '../search/message-index';

/** A history page of the pass (the most the service gives, docs/contract-gaps.md §5). */
const PAGE = 200;
/** Queries shorter than this list conversations only. */
export const MIN_QUERY_CHARACTERS = 2;

type SearchCrypto = Pick<
	CryptoWorkerClient,
	'searchMessages' | 'searchStatus' | 'markSearchCovered' | 'forgetSearch' | 'openConversationKeys' | 'decryptHistory'
>;

/** The conversations whose history this agent can read. */
export function readableConversations(conversations: readonly ConversationView[]): ConversationView[] {
	return conversations.filter((conversation) => conversation.agentWraps.length > 0 && conversation.status !== 'pending');
}

export class MessageSearch {
	#hits = $state.raw<SearchHit[]>([]);
	#query = $state('');
	#progress = $state.raw<{ done: number; total: number } | null>(null);
	private generation = 0;
	private stopped = false;
	private passing = false;

	constructor(
		private readonly crypto: SearchCrypto,
		private readonly agentKeyHandle: string
	) {}

	get hits(): readonly SearchHit[] {
		return this.#hits;
	}

	/** The query the hits answer. */
	get query(): string {
		return this.#query;
	}

	/** The history pass under way (conversations done of all), or null. */
	get progress(): { done: number; total: number } | null {
		return this.#progress;
	}

	/** Searches; a newer query wins over an older one still running. */
	async find(query: string): Promise<void> {
		const generation = ++this.generation;
		const trimmed = query.trim();
		if (trimmed.length < MIN_QUERY_CHARACTERS) {
			this.#hits = [];
			this.#query = trimmed;
			return;
		}
		const hits = await this.crypto.searchMessages(trimmed, 50).catch(() => []);
		if (generation !== this.generation || this.stopped) return;
		this.#hits = hits;
		this.#query = trimmed;
	}

	/** Indexes the history of every readable conversation not indexed yet; forgets the ones no longer readable. */
	async indexHistory(conversations: readonly ConversationView[]): Promise<void> {
		if (this.passing || this.stopped) return;
		this.passing = true;
		try {
			const readable = readableConversations(conversations);
			const status = await this.crypto.searchStatus();
			const readableIds: Record<string, true> = Object.fromEntries(readable.map((conversation) => [conversation.conversationId, true]));
			const gone = status.conversations.filter((conversationId) => !readableIds[conversationId]);
			if (gone.length) await this.crypto.forgetSearch(gone);
			this.#progress = { done: 0, total: readable.length };
			for (const conversation of readable) {
				if (this.stopped) return;
				await this.indexConversation(conversation, status.coverage[conversation.conversationId]).catch(() => undefined);
				// stopped meanwhile: the progress stop() cleared stays cleared
				if (!this.stopped) this.#progress = { done: (this.#progress?.done ?? 0) + 1, total: readable.length };
			}
			if (this.#query) await this.find(this.#query);
		} finally {
			this.passing = false;
			if (!this.stopped) this.#progress = null;
		}
	}

	private async indexConversation(conversation: ConversationView, coveredUpTo: string | undefined): Promise<void> {
		const { conversationId, agentWraps } = conversation;
		const [opened] = await this.crypto.openConversationKeys(this.agentKeyHandle, [
			{ conversationId, wrap: agentWraps[agentWraps.length - 1].wrap }
		]);
		if (!opened?.ok) return;
		let newest: string | undefined = coveredUpTo;
		let cursor: { before?: string; after?: string } = coveredUpTo ? { after: coveredUpTo } : {};
		for (;;) {
			if (this.stopped) return;
			const page = await v1Call(v1.listMessages(conversationId, { limit: PAGE, ...cursor }));
			const wanted = itemsToDecrypt(page.data, NOTHING_SHOWN);
			if (wanted.length) await this.crypto.decryptHistory(conversationId, wanted.map(toWorkerItem));
			if (coveredUpTo) newest = page.data.at(-1)?.messageId ?? newest;
			else newest ??= page.data.at(-1)?.messageId;
			const next = coveredUpTo ? page.data.at(-1)?.messageId : page.data[0]?.messageId;
			if (!page.hasMore || !next) break;
			cursor = coveredUpTo ? { after: next } : { before: next };
		}
		if (newest) await this.crypto.markSearchCovered(conversationId, newest);
	}

	stop(): void {
		this.stopped = true;
		this.#hits = [];
		this.#progress = null;
	}
}
