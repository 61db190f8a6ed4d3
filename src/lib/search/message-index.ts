/**
 * The agent's full-text index of decrypted messages (docs/search.md): FlexSearch's `Index` over the
 * text of each message (a file's name and caption for attachments), words and word beginnings, all
 * words required, case and accents ignored; beside it the messages themselves, for snippets. It lives
 * in the crypto worker, beside the plaintext it is built from; its serialized form is sealed under the
 * device key at rest (keystore/search-index.ts). Pure: no storage, no keys.
 */
import FlexSearch from 'flexsearch';

export interface IndexedMessage {
	messageId: string;
	conversationId: string;
	/** ISO 8601 UTC. */
	createdAt: string;
	senderType: 'user' | 'company';
	text: string;
}

/** A piece of a snippet; `match` pieces are words the query found. */
export interface SnippetPart {
	text: string;
	match: boolean;
}

export interface SearchHit {
	messageId: string;
	conversationId: string;
	createdAt: string;
	senderType: 'user' | 'company';
	snippet: SnippetPart[];
}

/** What a query may be: a few words, not a paste of a whole message. */
export const MAX_QUERY_CHARACTERS = 200;
export const MAX_HITS = 200;
/** The best matches of the index, of which the newest are shown. */
const CANDIDATES = 1_000;
/** The text shown around the first match. */
const SNIPPET_CHARACTERS = 160;
const FORMAT = 'inbox-search-index';
const VERSION = 2;
const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase without accents, as the index compares words. */
export function foldWord(word: string): string {
	return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The words of a query; the last may be a word still being typed, so it matches as a beginning. */
export function wordMatcher(query: string): (word: string) => boolean {
	const terms = [...query.matchAll(WORD)].map(([term]) => foldWord(term));
	const last = terms.at(-1);
	return (word) => {
		const folded = foldWord(word);
		return terms.includes(folded) || (last !== undefined && folded.startsWith(last));
	};
}

/** The words of `text` the query matched, marked, in a window around the first of them. */
export function snippetOf(text: string, matches: (word: string) => boolean): SnippetPart[] {
	const found: Array<{ start: number; end: number }> = [];
	for (const word of text.matchAll(WORD)) if (matches(word[0])) found.push({ start: word.index, end: word.index + word[0].length });
	const first = found[0]?.start ?? 0;
	const from = Math.max(0, Math.min(first - SNIPPET_CHARACTERS / 3, text.length - SNIPPET_CHARACTERS));
	const to = Math.min(text.length, from + SNIPPET_CHARACTERS);
	const parts: SnippetPart[] = [];
	let at = from;
	for (const { start, end } of found) {
		if (end <= from || start >= to) continue;
		if (start > at) parts.push({ text: text.slice(at, start), match: false });
		parts.push({ text: text.slice(Math.max(start, at), Math.min(end, to)), match: true });
		at = Math.min(end, to);
	}
	if (at < to) parts.push({ text: text.slice(at, to), match: false });
	if (from > 0) parts.unshift({ text: '…', match: false });
	if (to < text.length) parts.push({ text: '…', match: false });
	return parts;
}

type Row = [id: number, messageId: string, conversationId: string, createdAt: string, senderType: 'user' | 'company', text: string];

function newFlexIndex() {
	return new FlexSearch.Index({ tokenize: 'forward' });
}

export class MessageIndex {
	private readonly flex = newFlexIndex();
	private readonly messages = new Map<number, IndexedMessage>();
	private readonly ids = new Map<string, number>();
	/** The index's numbers of each conversation's messages, to forget a conversation at once. */
	private readonly byConversation = new Map<string, Set<number>>();
	private nextId = 1;

	private constructor() {}

	static empty(): MessageIndex {
		return new MessageIndex();
	}

	/** The index from its serialized form; anything else is refused with an Error. */
	static restore(serialized: string): MessageIndex {
		const parsed = JSON.parse(serialized) as { format?: unknown; version?: unknown; chunks?: unknown; rows?: unknown; nextId?: unknown };
		if (
			parsed?.format !== FORMAT ||
			parsed.version !== VERSION ||
			typeof parsed.chunks !== 'object' ||
			parsed.chunks === null ||
			!Array.isArray(parsed.rows) ||
			typeof parsed.nextId !== 'number'
		) {
			throw new Error('not a search index of this version');
		}
		const index = new MessageIndex();
		for (const [key, data] of Object.entries(parsed.chunks as Record<string, string>)) index.flex.import(key, data);
		for (const [id, messageId, conversationId, createdAt, senderType, text] of parsed.rows as Row[])
			index.remember(id, { messageId, conversationId, createdAt, senderType, text });
		index.nextId = parsed.nextId;
		return index;
	}

	serialize(): string {
		const chunks: Record<string, string> = {};
		void this.flex.export((key: string, data: string) => {
			chunks[key] = data;
		});
		const rows: Row[] = [...this.messages].map(([id, m]) => [id, m.messageId, m.conversationId, m.createdAt, m.senderType, m.text]);
		return JSON.stringify({ format: FORMAT, version: VERSION, chunks, rows, nextId: this.nextId });
	}

	get size(): number {
		return this.messages.size;
	}

	private remember(id: number, message: IndexedMessage): void {
		this.messages.set(id, message);
		this.ids.set(message.messageId, id);
		const ids = this.byConversation.get(message.conversationId) ?? new Set<number>();
		ids.add(id);
		this.byConversation.set(message.conversationId, ids);
	}

	/** Adds messages not indexed yet; returns how many were new. */
	add(messages: readonly IndexedMessage[]): number {
		let added = 0;
		for (const message of messages) {
			if (this.ids.has(message.messageId)) continue;
			const id = this.nextId++;
			this.flex.add(id, message.text);
			this.remember(id, { ...message });
			added++;
		}
		return added;
	}

	/** Forgets every message of the conversation (access ended). */
	removeConversation(conversationId: string): number {
		const ids = this.byConversation.get(conversationId);
		if (!ids) return 0;
		for (const id of ids) {
			this.flex.remove(id);
			this.ids.delete(this.messages.get(id)?.messageId ?? '');
			this.messages.delete(id);
		}
		this.byConversation.delete(conversationId);
		return ids.size;
	}

	conversations(): string[] {
		return [...this.byConversation.keys()];
	}

	/** Messages with every word of the query (the last as a beginning), newest first; a blank query finds nothing. */
	search(query: string, limit = 50): SearchHit[] {
		const trimmed = query.trim().slice(0, MAX_QUERY_CHARACTERS);
		if (!/[\p{L}\p{N}]/u.test(trimmed)) return [];
		const matches = wordMatcher(trimmed);
		return (this.flex.search(trimmed, { limit: CANDIDATES }) as number[])
			.flatMap((id) => this.messages.get(id) ?? [])
			.sort((a, b) => b.createdAt.localeCompare(a.createdAt))
			.slice(0, Math.min(Math.max(1, limit), MAX_HITS))
			.map((message) => ({
				messageId: message.messageId,
				conversationId: message.conversationId,
				createdAt: message.createdAt,
				senderType: message.senderType,
				snippet: snippetOf(message.text, matches)
			}));
	}
}
