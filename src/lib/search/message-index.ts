/**
 * The agent's full-text index of decrypted messages (docs/search.md, "The index"): the messages in
 * columns (text, id, conversation, time, sender) numbered by ordinal, and an inverted index of their
 * folded words (term-index.ts); words and word beginnings, all words required, case and accents
 * ignored, newest first, with snippets. It lives in the crypto worker, beside the plaintext it is
 * built from; its serialized form ("The index at rest") is sealed under the device key
 * (keystore/search-index.ts). Pure: no storage, no keys.
 */
import { ByteReader, ByteWriter, DamagedIndexError } from './byte-stream';
import { contains, inAnyOf, TermIndex } from './term-index';

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
/** The text shown around the first match. */
const SNIPPET_CHARACTERS = 160;
const MAGIC = new TextEncoder().encode('inbox-search-index/');
const VERSION = 3;
const WORD = /[\p{L}\p{N}]+/gu;

const ASCII = /^\p{ASCII}*$/u;

/** Lowercase without accents, as the index compares words (ASCII has no accents to take off). */
export function foldWord(word: string): string {
	if (ASCII.test(word)) return word.toLowerCase();
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

const lowercase = (word: string) => word.toLowerCase();

/** The folded words of a text, as the index keeps them (an ASCII text needs only lowercasing). */
function foldedWords(text: string): string[] {
	const fold = ASCII.test(text) ? lowercase : foldWord;
	return Array.from(text.matchAll(WORD), ([word]) => fold(word));
}

/** The `size` newest of the ordinals offered (ties: the one added later first), by a min-heap. */
class NewestFirst {
	private readonly heap: number[] = [];

	constructor(
		private readonly size: number,
		private readonly createdAt: Float64Array
	) {}

	private newer(a: number, b: number): boolean {
		return this.createdAt[a] > this.createdAt[b] || (this.createdAt[a] === this.createdAt[b] && a > b);
	}

	/** Whether the ordinal, not offered yet, would be kept. */
	wants(ordinal: number): boolean {
		return (this.heap.length < this.size || this.newer(ordinal, this.heap[0])) && !this.heap.includes(ordinal);
	}

	/** Keeps a wanted ordinal, dropping the oldest kept when full. */
	offer(ordinal: number): void {
		const heap = this.heap;
		if (heap.length < this.size) {
			let at = heap.push(ordinal) - 1;
			while (at > 0 && this.newer(heap[(at - 1) >> 1], heap[at])) {
				[heap[at], heap[(at - 1) >> 1]] = [heap[(at - 1) >> 1], heap[at]];
				at = (at - 1) >> 1;
			}
		} else {
			heap[0] = ordinal;
			for (let at = 0, oldest = 0; ; at = oldest) {
				for (const child of [2 * at + 1, 2 * at + 2]) if (child < heap.length && this.newer(heap[oldest], heap[child])) oldest = child;
				if (oldest === at) break;
				[heap[at], heap[oldest]] = [heap[oldest], heap[at]];
			}
		}
	}

	newestFirst(): number[] {
		return [...this.heap].sort((a, b) => (this.newer(a, b) ? -1 : 1));
	}
}

const COMPANY = 1;
const REMOVED = 2;
/** Texts are written in blocks of this many messages: one UTF-8 decoding each, well under any string limit. */
const TEXT_BLOCK = 1_024;

function withRoom<Column extends Uint8Array | Uint32Array | Float64Array>(column: Column, length: number): Column {
	if (length <= column.length) return column;
	const grown = new (column.constructor as new (length: number) => Column)(Math.ceil(length * 1.5));
	grown.set(column as ArrayLike<number>);
	return grown;
}

const zigzag = (delta: number) => (delta >= 0 ? delta * 2 : -delta * 2 - 1);
const unzigzag = (value: number) => (value % 2 === 0 ? value / 2 : -(value + 1) / 2);

export class MessageIndex {
	private terms = new TermIndex();
	private readonly texts: string[] = [];
	private readonly messageIds: string[] = [];
	/** messageId → ordinal, for the messages still indexed. */
	private readonly ordinals = new Map<string, number>();
	private conversationOf = new Uint32Array(1_024);
	private createdAt = new Float64Array(1_024);
	private flags = new Uint8Array(1_024);
	private readonly conversationIds: string[] = [];
	private readonly conversationNumbers = new Map<string, number>();
	private readonly messagesPerConversation: number[] = [];

	private constructor() {}

	static empty(): MessageIndex {
		return new MessageIndex();
	}

	get size(): number {
		return this.ordinals.size;
	}

	private conversationNumber(conversationId: string): number {
		let number = this.conversationNumbers.get(conversationId);
		if (number === undefined) {
			number = this.conversationIds.push(conversationId) - 1;
			this.conversationNumbers.set(conversationId, number);
			this.messagesPerConversation.push(0);
		}
		return number;
	}

	/** Keeps the message as the next ordinal, without indexing its words. */
	private append(messageId: string, conversation: number, createdAt: number, flags: number, text: string): number {
		const ordinal = this.texts.length;
		this.conversationOf = withRoom(this.conversationOf, ordinal + 1);
		this.createdAt = withRoom(this.createdAt, ordinal + 1);
		this.flags = withRoom(this.flags, ordinal + 1);
		this.texts.push(text);
		this.messageIds.push(messageId);
		this.ordinals.set(messageId, ordinal);
		this.conversationOf[ordinal] = conversation;
		this.createdAt[ordinal] = createdAt;
		this.flags[ordinal] = flags;
		this.messagesPerConversation[conversation]++;
		return ordinal;
	}

	/** Adds messages not indexed yet (and with a time that parses); returns how many were new. */
	add(messages: readonly IndexedMessage[]): number {
		let added = 0;
		for (const message of messages) {
			const createdAt = Date.parse(message.createdAt);
			if (this.ordinals.has(message.messageId) || !Number.isFinite(createdAt)) continue;
			const conversation = this.conversationNumber(message.conversationId);
			const flags = message.senderType === 'company' ? COMPANY : 0;
			const ordinal = this.append(message.messageId, conversation, createdAt, flags, message.text);
			for (const word of foldedWords(message.text)) this.terms.add(ordinal, word);
			added++;
		}
		return added;
	}

	/** Forgets every message of the conversation (access ended); its postings stay until the next save. */
	removeConversation(conversationId: string): number {
		const conversation = this.conversationNumbers.get(conversationId);
		const removed = conversation === undefined ? 0 : this.messagesPerConversation[conversation];
		if (removed === 0) return 0;
		for (let ordinal = 0; ordinal < this.texts.length; ordinal++) {
			if (this.conversationOf[ordinal] !== conversation || this.flags[ordinal] & REMOVED) continue;
			this.flags[ordinal] |= REMOVED;
			this.ordinals.delete(this.messageIds[ordinal]);
			this.texts[ordinal] = '';
		}
		this.messagesPerConversation[conversation!] = 0;
		return removed;
	}

	conversations(): string[] {
		return this.conversationIds.filter((_, number) => this.messagesPerConversation[number] > 0);
	}

	/**
	 * The ordinals of the messages with every word (the last as a beginning), newest first: the shortest
	 * list of a whole word, or the lists of the beginning when they are shorter, walked from the last
	 * ordinal, each message newer than the kept ones checked against the other lists.
	 */
	private newestMatches(words: string[], limit: number): number[] {
		const whole = [...new Set(words.slice(0, -1))].map((word) => this.terms.exact(word)).sort((a, b) => a.length - b.length);
		const prefixed = this.terms.prefixed(words.at(-1)!);
		const byPrefix = whole.length === 0 || prefixed.reduce((sum, list) => sum + list.length, 0) < whole[0].length;
		const drivers = byPrefix ? prefixed : whole.slice(0, 1);
		const others = byPrefix ? whole : whole.slice(1);
		const beginsWithPrefix = byPrefix ? () => true : inAnyOf(prefixed, this.texts.length);
		const newest = new NewestFirst(limit, this.createdAt);
		for (const list of drivers)
			for (let i = list.length - 1; i >= 0; i--) {
				const ordinal = list[i];
				if (this.flags[ordinal] & REMOVED || !newest.wants(ordinal)) continue;
				if (others.every((other) => contains(other, ordinal)) && beginsWithPrefix(ordinal)) newest.offer(ordinal);
			}
		return newest.newestFirst();
	}

	/** Messages with every word of the query (the last as a beginning), newest first; a blank query finds nothing. */
	search(query: string, limit = 50): SearchHit[] {
		const trimmed = query.trim().slice(0, MAX_QUERY_CHARACTERS);
		const words = foldedWords(trimmed);
		if (words.length === 0) return [];
		const matches = wordMatcher(trimmed);
		return this.newestMatches(words, Math.min(Math.max(1, limit), MAX_HITS)).map((ordinal) => ({
			messageId: this.messageIds[ordinal],
			conversationId: this.conversationIds[this.conversationOf[ordinal]],
			createdAt: new Date(this.createdAt[ordinal]).toISOString(),
			senderType: this.flags[ordinal] & COMPANY ? 'company' : 'user',
			snippet: snippetOf(this.texts[ordinal], matches)
		}));
	}

	/** The index as bytes ("The index at rest"): the messages still indexed, renumbered, in blocks; then the words. */
	serialize(): Uint8Array {
		const writer = new ByteWriter();
		writer.raw(MAGIC);
		writer.varint(VERSION);
		const keptConversations = new Int32Array(this.conversationIds.length).fill(-1);
		const conversations = this.conversations();
		conversations.forEach((conversationId, number) => (keptConversations[this.conversationNumbers.get(conversationId)!] = number));
		writer.varint(conversations.length);
		for (const conversationId of conversations) writer.string(conversationId);
		const renumber = new Int32Array(this.texts.length).fill(-1);
		const kept: number[] = [];
		for (let ordinal = 0; ordinal < this.texts.length; ordinal++)
			if (!(this.flags[ordinal] & REMOVED)) renumber[ordinal] = kept.push(ordinal) - 1;
		writer.varint(kept.length);
		let previous = 0;
		for (let from = 0; from < kept.length; from += TEXT_BLOCK) {
			const block = kept.slice(from, from + TEXT_BLOCK);
			for (const ordinal of block) {
				writer.varint(keptConversations[this.conversationOf[ordinal]]);
				writer.varint(zigzag(this.createdAt[ordinal] - previous));
				previous = this.createdAt[ordinal];
				writer.varint(this.flags[ordinal] & COMPANY);
				writer.varint(this.messageIds[ordinal].length);
				writer.varint(this.texts[ordinal].length);
			}
			writer.texts(block.flatMap((ordinal) => [this.messageIds[ordinal], this.texts[ordinal]]));
		}
		this.terms.write(writer, kept.length === this.texts.length ? null : renumber);
		return writer.finish();
	}

	/** The index from `serialize`'s bytes; another format or version, or damaged bytes, throw an Error. */
	static restore(bytes: Uint8Array): MessageIndex {
		if (bytes.length < MAGIC.length || MAGIC.some((byte, i) => bytes[i] !== byte)) throw new Error('not a search index');
		const reader = new ByteReader(bytes.subarray(MAGIC.length));
		const version = reader.varint();
		if (version !== VERSION) throw new Error(`a search index of version ${version}, not ${VERSION}`);
		const index = new MessageIndex();
		const conversationCount = reader.varint();
		for (let number = 0; number < conversationCount; number++)
			if (index.conversationNumber(reader.string()) !== number) throw new DamagedIndexError('a conversation is repeated');
		const messageCount = reader.varint();
		let createdAt = 0;
		for (let from = 0; from < messageCount; from += TEXT_BLOCK) {
			const block = Array.from({ length: Math.min(TEXT_BLOCK, messageCount - from) }, () => ({
				conversation: reader.bounded(conversationCount - 1, 'a conversation'),
				createdAt: (createdAt += unzigzag(reader.varint())),
				flags: reader.bounded(COMPANY, 'a sender'),
				idLength: reader.varint(),
				textLength: reader.varint()
			}));
			const strings = reader.string();
			let at = 0;
			for (const message of block) {
				const messageId = strings.slice(at, (at += message.idLength));
				if (index.ordinals.has(messageId)) throw new DamagedIndexError('a message is repeated');
				index.append(messageId, message.conversation, message.createdAt, message.flags, strings.slice(at, (at += message.textLength)));
			}
			if (at !== strings.length) throw new DamagedIndexError('texts of the wrong length');
		}
		index.terms = TermIndex.read(reader, messageCount);
		if (!reader.done) throw new DamagedIndexError('bytes after the end');
		return index;
	}
}
