/**
 * Search in the worker (docs/search.md): the index of this account's decrypted messages, opened
 * from its sealed record on first use after an unlock, fed by the history pages the worker decrypts,
 * written back a few seconds after it changes, and dropped from memory on lock. With it, for each
 * conversation, the newest message up to which everything is indexed, so the history pass resumes.
 */
import type { SealedSearchIndex } from '../keystore/search-index';
import { MessageIndex, type IndexedMessage, type SearchHit } from '../search/message-index';
import type { DecryptedItem, HistoryItem } from './types';
import { isId } from '../crypto/rules';
import { concatBytes, utf8Decode, utf8Encode } from '../crypto/encoding';

const NEWLINE = 0x0a;

/** How long after a change the index is written (a burst of pages is written once). */
export const SEARCH_SAVE_DELAY_MS = 5_000;

interface OpenIndex {
	index: MessageIndex;
	/** conversationId → the newest messageId indexed with everything before it. */
	coverage: Record<string, string>;
}

/** The messages of a decrypted page worth indexing: texts, and a file's name and caption. */
export function indexableMessages(
	conversationId: string,
	items: readonly HistoryItem[],
	results: readonly DecryptedItem[]
): IndexedMessage[] {
	return items.flatMap((item, index) => {
		const result = results[index];
		if (!result?.ok || !isId(item.messageId) || typeof item.createdAt !== 'string') return [];
		const text = result.attachment ? [result.attachment.name, result.attachment.caption ?? ''].join(' ').trim() : result.text;
		return text ? [{ messageId: item.messageId, conversationId, createdAt: item.createdAt, senderType: item.senderType, text }] : [];
	});
}

export class SearchKeeper {
	private opened: Promise<OpenIndex> | null = null;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private dirty = false;

	constructor(
		private readonly sealed: () => SealedSearchIndex,
		private readonly saveDelayMs = SEARCH_SAVE_DELAY_MS
	) {}

	private open(): Promise<OpenIndex> {
		this.opened ??= this.sealed()
			.load()
			.then((bytes) => {
				if (bytes === null) return { index: MessageIndex.empty(), coverage: {} };
				const newline = bytes.indexOf(NEWLINE);
				return {
					coverage: JSON.parse(utf8Decode(bytes.subarray(0, newline))) as Record<string, string>,
					index: MessageIndex.restore(bytes.subarray(newline + 1))
				};
			})
			.catch(() => ({ index: MessageIndex.empty(), coverage: {} }));
		return this.opened;
	}

	private changed(): void {
		this.dirty = true;
		clearTimeout(this.timer);
		this.timer = setTimeout(() => void this.flush().catch(() => undefined), this.saveDelayMs);
	}

	async add(messages: readonly IndexedMessage[]): Promise<number> {
		if (messages.length === 0) return 0;
		const added = (await this.open()).index.add(messages);
		if (added > 0) this.changed();
		return added;
	}

	/** Everything of the conversation up to `messageId` is indexed. */
	async covered(conversationId: string, messageId: string): Promise<void> {
		const open = await this.open();
		if (open.coverage[conversationId] === messageId) return;
		open.coverage[conversationId] = messageId;
		this.changed();
	}

	async coverage(): Promise<Record<string, string>> {
		return { ...(await this.open()).coverage };
	}

	async search(query: string, limit?: number): Promise<SearchHit[]> {
		return (await this.open()).index.search(query, limit);
	}

	async size(): Promise<number> {
		return (await this.open()).index.size;
	}

	/** Forgets the conversations (the agent's access ended), from memory and, soon, from the stored index. */
	async forget(conversationIds: readonly string[]): Promise<void> {
		const open = await this.open();
		let removed = false;
		for (const conversationId of conversationIds) {
			removed = open.index.removeConversation(conversationId) > 0 || conversationId in open.coverage || removed;
			delete open.coverage[conversationId];
		}
		if (removed) this.changed();
	}

	/** The conversations that have something indexed. */
	async conversations(): Promise<string[]> {
		const open = await this.open();
		return [...new Set([...open.index.conversations(), ...Object.keys(open.coverage)])];
	}

	/** Writes pending changes now. */
	async flush(): Promise<void> {
		clearTimeout(this.timer);
		if (!this.dirty || !this.opened) return;
		this.dirty = false;
		const { index, coverage } = await this.opened;
		await this.sealed().save(concatBytes(utf8Encode(`${JSON.stringify(coverage)}\n`), index.serialize()));
	}

	/** The key is locked: what changed is written, then the plaintext index leaves memory. */
	async lock(): Promise<void> {
		await this.flush().catch(() => undefined);
		this.opened = null;
	}

	/** Sign-out: nothing is kept, in memory or at rest. */
	async clear(): Promise<void> {
		clearTimeout(this.timer);
		this.dirty = false;
		this.opened = null;
		await this.sealed().clear();
	}
}
