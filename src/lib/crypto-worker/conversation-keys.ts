/**
 * Conversation keys K opened in the worker (contract 6.1 "K may be cached per conversationId",
 * contract 8: up to 1,000): a least-recently-used cache that wipes every key it drops.
 */

export const CONVERSATION_KEY_CACHE_SIZE = 1000;

export interface ConversationKey {
	conversationId: string;
	/** The wrap's keyVersion; replies must carry it (contract 4.2). */
	keyVersion: number;
	/** K, 32 bytes; never leaves the worker. */
	key: Uint8Array;
}

export class ConversationKeyCache {
	/** Map iteration follows insertion order: the first entry is the least recently used. */
	private readonly entries = new Map<string, ConversationKey>();

	constructor(readonly capacity = CONVERSATION_KEY_CACHE_SIZE) {}

	get size(): number {
		return this.entries.size;
	}

	/** The key of a conversation, marked as most recently used. */
	get(conversationId: string): ConversationKey | undefined {
		const entry = this.entries.get(conversationId);
		if (entry) {
			this.entries.delete(conversationId);
			this.entries.set(conversationId, entry);
		}
		return entry;
	}

	has(conversationId: string): boolean {
		return this.entries.has(conversationId);
	}

	/** Stores a copy of `key`; replaces (and wipes) an older key of the conversation; evicts the oldest beyond capacity. */
	set(conversationId: string, keyVersion: number, key: Uint8Array): void {
		this.delete(conversationId);
		this.entries.set(conversationId, { conversationId, keyVersion, key: key.slice() });
		while (this.entries.size > this.capacity) {
			const oldest = this.entries.keys().next().value as string;
			this.delete(oldest);
		}
	}

	delete(conversationId: string): void {
		const entry = this.entries.get(conversationId);
		if (!entry) return;
		entry.key.fill(0);
		this.entries.delete(conversationId);
	}

	/** Wipes and drops every key. */
	clear(): void {
		for (const entry of this.entries.values()) entry.key.fill(0);
		this.entries.clear();
	}
}
