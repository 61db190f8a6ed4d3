import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader, ByteWriter, DamagedIndexError } from './byte-stream';
import { contains, inAnyOf, TermIndex } from './term-index';

const sortedOrdinals = fc
	.uniqueArray(fc.nat({ max: 2_000 }), { maxLength: 60 })
	.map((values) => Int32Array.from(values.sort((a, b) => a - b)));

function written(index: TermIndex, messageCount: number): Uint8Array {
	const writer = new ByteWriter();
	index.write(
		writer,
		Int32Array.from({ length: messageCount }, (_, ordinal) => ordinal)
	);
	return writer.finish();
}

describe('the term index (docs/search.md, "The index")', () => {
	it('finds an ordinal in a sorted list exactly when it is there', () => {
		fc.assert(
			fc.property(sortedOrdinals, fc.nat({ max: 2_001 }), (list, ordinal) => {
				expect(contains(list, ordinal)).toBe(list.includes(ordinal));
			})
		);
	});

	it('tells whether an ordinal is in any of a few lists, or of many (by a bitmap)', () => {
		fc.assert(
			fc.property(fc.array(sortedOrdinals, { maxLength: 9 }), fc.nat({ max: 2_000 }), (lists, ordinal) => {
				expect(inAnyOf(lists, 2_001)(ordinal)).toBe(lists.some((list) => list.includes(ordinal)));
			})
		);
	});

	it('keeps each word once a message, and finds the words that begin with a prefix, added before or after a query', () => {
		const index = new TermIndex();
		for (const [ordinal, words] of [
			[0, ['lamp', 'lamp', 'post']],
			[1, ['lampshade']],
			[3, ['la', 'clamp']]
		] as const)
			for (const word of words) index.add(ordinal, word);
		expect([...index.exact('lamp')]).toEqual([0]);
		expect([...index.exact('lam')]).toEqual([]);
		expect(index.prefixed('lamp').map((list) => [...list])).toEqual([[0], [1]]);
		index.add(4, 'lamb');
		index.add(5, 'lamp');
		expect(index.prefixed('lam').map((list) => [...list])).toEqual([[4], [0, 5], [1]]);
		expect(
			index
				.prefixed('la')
				.flatMap((list) => [...list])
				.sort()
		).toEqual([0, 1, 3, 4, 5]);
		expect(index.prefixed('x')).toEqual([]);
	});

	it('writes and reads its words and postings, leaving out and renumbering removed messages', () => {
		const index = new TermIndex();
		['lamp', 'post', 'lamp', 'chair'].forEach((word, ordinal) => index.add(ordinal, word));
		const writer = new ByteWriter();
		index.write(writer, Int32Array.from([0, -1, 1, 2]));
		const read = TermIndex.read(new ByteReader(writer.finish()), 3);
		expect([...read.exact('lamp')]).toEqual([0, 1]);
		expect([...read.exact('post')]).toEqual([]);
		expect([...read.exact('chair')]).toEqual([2]);
		expect(read.prefixed('').length).toBe(2);
	});

	it('refuses postings out of order or out of range, and repeated words', () => {
		const index = new TermIndex();
		index.add(0, 'lamp');
		index.add(2, 'lamp');
		const bytes = written(index, 3);
		expect(() => TermIndex.read(new ByteReader(bytes), 2)).toThrow(DamagedIndexError);
		const twice = new ByteWriter();
		twice.varint(2);
		for (let n = 0; n < 2; n++) {
			twice.string('lamp');
			twice.ascending(Int32Array.of(0));
		}
		expect(() => TermIndex.read(new ByteReader(twice.finish()), 1)).toThrow('a word is empty or repeated');
		const backwards = bytes.slice();
		backwards[backwards.length - 1] = 0; // a step of 0: the same message twice
		expect(() => TermIndex.read(new ByteReader(backwards), 3)).toThrow('a list out of order or out of range');
	});
});

describe('the bytes of the index at rest', () => {
	it('reads back the numbers, strings, lists and texts written, and refuses truncated bytes', () => {
		fc.assert(
			fc.property(fc.maxSafeNat(), fc.string(), sortedOrdinals, fc.array(fc.string({ unit: 'grapheme' })), (number, text, list, texts) => {
				const writer = new ByteWriter();
				writer.varint(number);
				writer.string(text);
				writer.ascending(list);
				writer.texts(texts);
				const bytes = writer.finish();
				const reader = new ByteReader(bytes);
				expect(reader.varint()).toBe(number);
				expect(reader.string()).toBe(text.isWellFormed() ? text : text.toWellFormed());
				expect([...reader.ascending(2_001)]).toEqual([...list]);
				expect(reader.string()).toBe(texts.join(''));
				expect(reader.done).toBe(true);
				expect(() => {
					const short = new ByteReader(bytes.subarray(0, bytes.length - 1));
					short.varint();
					short.string();
					short.ascending(2_001);
					short.string();
				}).toThrow(DamagedIndexError);
			})
		);
	});

	it('refuses a number longer than eight bytes, and text that is not UTF-8', () => {
		expect(() => new ByteReader(new Uint8Array(9).fill(0x80)).varint()).toThrow('a number is too long');
		expect(() => new ByteReader(Uint8Array.of(1, 0xff)).string()).toThrow('a text is not UTF-8');
	});
});
