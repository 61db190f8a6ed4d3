import { describe, expect, it } from 'vitest';
import { ConversationKeyCache, CONVERSATION_KEY_CACHE_SIZE } from './conversation-keys';

const key = (fill: number) => new Uint8Array(32).fill(fill);

describe('the conversation key cache', () => {
	it('holds 1,000 keys by default, as the contract suggests', () => {
		expect(new ConversationKeyCache().capacity).toBe(CONVERSATION_KEY_CACHE_SIZE);
		expect(CONVERSATION_KEY_CACHE_SIZE).toBe(1000);
	});

	it('evicts the least recently used key and wipes it', () => {
		const cache = new ConversationKeyCache(2);
		cache.set('conv_a', 1, key(1));
		cache.set('conv_b', 1, key(2));
		const a = cache.get('conv_a')!; // conv_a is now the most recent
		cache.set('conv_c', 1, key(3));
		expect(cache.has('conv_b')).toBe(false);
		expect(cache.has('conv_a')).toBe(true);
		expect(cache.size).toBe(2);
		cache.set('conv_d', 1, key(4));
		expect(cache.has('conv_a')).toBe(false);
		expect(a.key).toEqual(new Uint8Array(32));
	});

	it('keeps its own copy, and replacing a key wipes the old one', () => {
		const cache = new ConversationKeyCache();
		const mine = key(5);
		cache.set('conv_a', 1, mine);
		mine.fill(0);
		const stored = cache.get('conv_a')!;
		expect(stored.key).toEqual(key(5));
		cache.set('conv_a', 2, key(6));
		expect(stored.key).toEqual(new Uint8Array(32));
		expect(cache.get('conv_a')).toMatchObject({ keyVersion: 2, key: key(6) });
	});

	it('clear wipes every key', () => {
		const cache = new ConversationKeyCache();
		cache.set('conv_a', 1, key(7));
		cache.set('conv_b', 1, key(8));
		const entries = [cache.get('conv_a')!, cache.get('conv_b')!];
		cache.clear();
		expect(cache.size).toBe(0);
		for (const entry of entries) expect(entry.key).toEqual(new Uint8Array(32));
	});
});
