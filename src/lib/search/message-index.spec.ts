import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DamagedIndexError } from './byte-stream';
import { foldWord, MAX_HITS, MessageIndex, snippetOf, wordMatcher, type IndexedMessage } from './message-index';

const message = (messageId: string, text: string, overrides: Partial<IndexedMessage> = {}): IndexedMessage => ({
	messageId,
	conversationId: 'conv_a',
	createdAt: '2026-11-26T10:00:00.000Z',
	senderType: 'user',
	text,
	...overrides
});

const ids = (index: MessageIndex, query: string) => index.search(query).map((hit) => hit.messageId);

describe('the message index (docs/search.md)', () => {
	it('finds words and word beginnings, all words required, in any case and with or without accents', () => {
		const index = MessageIndex.empty();
		expect(
			index.add([
				message('msg_1', 'My lamp arrived broken'),
				message('msg_2', 'The lampshade is fine', { conversationId: 'conv_b' }),
				message('msg_3', 'Où est mon colis? Ça arrive lundi'),
				message('msg_4', 'The lamp flickers at night'),
				message('msg_5', 'Лампа сломана')
			])
		).toBe(5);
		expect(ids(index, 'lamp').sort()).toEqual(['msg_1', 'msg_2', 'msg_4']);
		expect(ids(index, 'lamp broken')).toEqual(['msg_1']);
		expect(ids(index, 'LAMP Nig')).toEqual(['msg_4']);
		expect(ids(index, 'colis ca')).toEqual(['msg_3']);
		expect(ids(index, 'où')).toEqual(['msg_3']);
		expect(ids(index, 'лампа')).toEqual(['msg_5']);
		expect(ids(index, 'invoice')).toEqual([]);
		expect(ids(index, 'lamp invoice')).toEqual([]);
		expect(ids(index, '   ')).toEqual([]);
		expect(ids(index, '?!')).toEqual([]);
		const [hit] = index.search('colis');
		expect(hit).toMatchObject({ messageId: 'msg_3', conversationId: 'conv_a', createdAt: '2026-11-26T10:00:00.000Z', senderType: 'user' });
		expect(hit.snippet.filter((part) => part.match).map((part) => part.text)).toEqual(['colis']);
	});

	it('ranks newer first among equal matches, and caps the number of hits', () => {
		const index = MessageIndex.empty();
		index.add([
			message('msg_old', 'refund please', { createdAt: '2026-01-01T00:00:00.000Z' }),
			message('msg_new', 'refund please', { createdAt: '2026-06-01T00:00:00.000Z' })
		]);
		expect(ids(index, 'refund')).toEqual(['msg_new', 'msg_old']);
		index.add(Array.from({ length: MAX_HITS + 20 }, (_, n) => message(`msg_many${n}`, `refund number ${n}`)));
		expect(index.search('refund', 10_000)).toHaveLength(MAX_HITS);
		expect(index.search('refund', 0)).toHaveLength(1);
		expect(index.search('refund', 5)).toHaveLength(5);
	});

	it('adds a message once, and forgets a whole conversation', () => {
		const index = MessageIndex.empty();
		expect(index.add([message('msg_1', 'lamp'), message('msg_1', 'lamp again')])).toBe(1);
		expect(index.add([message('msg_1', 'lamp')])).toBe(0);
		index.add([message('msg_2', 'lamp post', { conversationId: 'conv_b' })]);
		expect(index.size).toBe(2);
		expect(index.conversations().sort()).toEqual(['conv_a', 'conv_b']);
		expect(index.removeConversation('conv_a')).toBe(1);
		expect(index.removeConversation('conv_a')).toBe(0);
		expect(ids(index, 'lamp')).toEqual(['msg_2']);
		expect(index.size).toBe(1);
		expect(index.conversations()).toEqual(['conv_b']);
	});

	it('survives serialization, and refuses what is not its own format', () => {
		const index = MessageIndex.empty();
		index.add([message('msg_1', 'lamp broken'), message('msg_2', 'chair', { conversationId: 'conv_b' })]);
		const restored = MessageIndex.restore(index.serialize());
		expect(ids(restored, 'lamp')).toEqual(['msg_1']);
		expect(restored.size).toBe(2);
		expect(restored.removeConversation('conv_b')).toBe(1);
		const bytes = (text: string) => new TextEncoder().encode(text);
		const formerFormat = { format: 'inbox-search-index', version: 2, chunks: {}, rows: [], nextId: 1 };
		expect(() => MessageIndex.restore(bytes(JSON.stringify(formerFormat)))).toThrow('not a search index');
		expect(() => MessageIndex.restore(bytes('inbox'))).toThrow('not a search index');
		const serialized = index.serialize();
		const versionAt = 'inbox-search-index/'.length;
		const nextVersion = serialized.slice();
		nextVersion[versionAt]++;
		expect(() => MessageIndex.restore(nextVersion)).toThrow(
			`a search index of version ${serialized[versionAt] + 1}, not ${serialized[versionAt]}`
		);
		for (const length of [versionAt + 1, serialized.length - 1])
			expect(() => MessageIndex.restore(serialized.subarray(0, length))).toThrow(DamagedIndexError);
		expect(() => MessageIndex.restore(new Uint8Array([...serialized, 0]))).toThrow('bytes after the end');
	});

	it('marks the matched words in a window around the first one', () => {
		const lamp = wordMatcher('lamp');
		expect(snippetOf('My lamp arrived, the LAMP is broken', wordMatcher('broken lamp'))).toEqual([
			{ text: 'My ', match: false },
			{ text: 'lamp', match: true },
			{ text: ' arrived, the ', match: false },
			{ text: 'LAMP', match: true },
			{ text: ' is ', match: false },
			{ text: 'broken', match: true }
		]);
		const long = `${'before '.repeat(60)}lamp${' after'.repeat(60)}`;
		const parts = snippetOf(long, lamp);
		expect(parts[0]).toEqual({ text: '…', match: false });
		expect(parts.at(-1)).toEqual({ text: '…', match: false });
		expect(parts.filter((part) => part.match)).toEqual([{ text: 'lamp', match: true }]);
		expect(parts.map((part) => part.text).join('').length).toBeLessThanOrEqual(162);
		expect(snippetOf('nothing here', lamp)).toEqual([{ text: 'nothing here', match: false }]);
	});

	it('matches the last word of a query as a beginning, the others whole, folding case and accents', () => {
		const matches = wordMatcher('Ça lam');
		expect(['ca', 'ÇA', 'lamp', 'lampshade', 'Lam'].map(matches)).toEqual([true, true, true, true, true]);
		expect(['cab', 'la', 'clamp'].map(matches)).toEqual([false, false, false]);
		expect(['anything'].map(wordMatcher('  '))).toEqual([false]);
	});

	it('forgets a conversation and takes its messages again when they come back, and saves without them', () => {
		const index = MessageIndex.empty();
		index.add([message('msg_1', 'lamp', { conversationId: 'conv_b' }), message('msg_2', 'lamp post')]);
		expect(index.removeConversation('conv_b')).toBe(1);
		expect(ids(MessageIndex.restore(index.serialize()), 'lamp')).toEqual(['msg_2']);
		expect(index.add([message('msg_1', 'lamp again', { conversationId: 'conv_b', createdAt: '2026-11-27T10:00:00.000Z' })])).toBe(1);
		expect(ids(index, 'lamp')).toEqual(['msg_1', 'msg_2']);
		expect(ids(index, 'again')).toEqual(['msg_1']);
		expect(index.conversations().sort()).toEqual(['conv_a', 'conv_b']);
	});

	it('finds the newest of all matches, not of some of them, and leaves out a message whose time does not parse', () => {
		const index = MessageIndex.empty();
		const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString();
		index.add(Array.from({ length: 3_000 }, (_, n) => message(`msg_${n}`, 'refund please', { createdAt: at((n * 7_919) % 3_000) })));
		expect(index.add([message('msg_undated', 'refund', { createdAt: 'yesterday' })])).toBe(0);
		expect(index.search('refund', 3).map((hit) => hit.createdAt)).toEqual([at(2_999), at(2_998), at(2_997)]);
	});

	it('answers as a scan of the texts would, before and after a round trip through its bytes', () => {
		const words = fc.constantFrom('lamp', 'Lampe', 'lampshade', 'été', 'ETE', 'étoile', 'post', 'café', 'cafe', 'a', 'ab');
		const messages = fc.array(
			fc.record({
				text: fc.array(words, { minLength: 1, maxLength: 6 }).map((picked) => picked.join(' ')),
				minute: fc.nat(50),
				conversation: fc.nat(2)
			}),
			{ maxLength: 40 }
		);
		const queries = fc
			.array(
				fc.oneof(
					words,
					words.map((word) => word.slice(0, 2))
				),
				{ minLength: 1, maxLength: 3 }
			)
			.map((picked) => picked.join(' '));
		fc.assert(
			fc.property(messages, queries, fc.nat(2), (generated, query, forgotten) => {
				const index = MessageIndex.empty();
				const all = generated.map(({ text, minute, conversation }, n) =>
					message(`msg_${n}`, text, {
						conversationId: `conv_${conversation}`,
						createdAt: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString()
					})
				);
				index.add(all);
				index.removeConversation(`conv_${forgotten}`);
				const terms = query.split(' ').map(foldWord);
				const prefix = terms.pop()!;
				const expected = all
					.map((kept, n) => ({ kept, n, words: kept.text.split(' ').map(foldWord) }))
					.filter(
						({ kept, words }) =>
							kept.conversationId !== `conv_${forgotten}` &&
							terms.every((term) => words.includes(term)) &&
							words.some((word) => word.startsWith(prefix))
					)
					.sort((a, b) => b.kept.createdAt.localeCompare(a.kept.createdAt) || b.n - a.n)
					.map(({ kept }) => kept.messageId);
				expect(ids(index, query)).toEqual(expected.slice(0, 50));
				expect(ids(MessageIndex.restore(index.serialize()), query)).toEqual(expected.slice(0, 50));
			})
		);
	});
});
