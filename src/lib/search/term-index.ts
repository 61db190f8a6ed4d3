/**
 * The inverted index under the message index (docs/search.md, "The index"): a dictionary of folded
 * words, each with its postings, the ordinals of the messages that contain it, ascending, in a typed
 * array; the words are also kept sorted, so those that begin with a prefix are one range found by
 * binary search. Ordinals are added in ascending order only, which keeps every list sorted for free.
 */
import { DamagedIndexError, type ByteReader, type ByteWriter } from './byte-stream';

const EMPTY = new Int32Array(0);
/** Up to this many lists, membership is a binary search in each; past it, one bitmap of all. */
const FEW_LISTS = 4;

/** Whether the sorted list holds the ordinal (binary search). */
export function contains(list: Int32Array, ordinal: number): boolean {
	let low = 0;
	let high = list.length;
	while (low < high) {
		const middle = (low + high) >>> 1;
		if (list[middle] < ordinal) low = middle + 1;
		else high = middle;
	}
	return list[low] === ordinal;
}

/** Whether an ordinal is in any of the lists: a binary search in each of a few, a bitmap of many. */
export function inAnyOf(lists: readonly Int32Array[], ordinalCount: number): (ordinal: number) => boolean {
	if (lists.length <= FEW_LISTS) return (ordinal) => lists.some((list) => contains(list, ordinal));
	const present = new Uint8Array(ordinalCount);
	for (const list of lists) for (let i = 0; i < list.length; i++) present[list[i]] = 1;
	return (ordinal) => present[ordinal] === 1;
}

export class TermIndex {
	private readonly termNumbers = new Map<string, number>();
	private readonly terms: string[] = [];
	private readonly postings: Int32Array[] = [];
	private readonly counts: number[] = [];
	/** Term numbers in the order of their terms; those from `sortedUpTo` on are added at the next prefix query. */
	private sorted: number[] = [];
	private sortedUpTo = 0;

	/** Records that the message `ordinal` (not lower than any added before) contains `term`. */
	add(ordinal: number, term: string): void {
		let number = this.termNumbers.get(term);
		if (number === undefined) {
			number = this.terms.length;
			this.termNumbers.set(term, number);
			this.terms.push(term);
			this.postings.push(new Int32Array(2));
			this.counts.push(0);
		}
		const count = this.counts[number];
		let list = this.postings[number];
		if (count > 0 && list[count - 1] === ordinal) return;
		if (count === list.length) {
			list = new Int32Array(Math.ceil(count * 1.5) + 2);
			list.set(this.postings[number]);
			this.postings[number] = list;
		}
		list[count] = ordinal;
		this.counts[number] = count + 1;
	}

	/** The messages containing exactly this word. */
	exact(term: string): Int32Array {
		const number = this.termNumbers.get(term);
		return number === undefined ? EMPTY : this.postings[number].subarray(0, this.counts[number]);
	}

	/** The postings of every word that begins with `prefix`. */
	prefixed(prefix: string): Int32Array[] {
		this.sortNewTerms();
		let low = 0;
		let high = this.sorted.length;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if (this.terms[this.sorted[middle]] < prefix) low = middle + 1;
			else high = middle;
		}
		const lists: Int32Array[] = [];
		for (let i = low; i < this.sorted.length && this.terms[this.sorted[i]].startsWith(prefix); i++)
			lists.push(this.postings[this.sorted[i]].subarray(0, this.counts[this.sorted[i]]));
		return lists;
	}

	private sortNewTerms(): void {
		if (this.sortedUpTo === this.terms.length) return;
		const added = this.terms.slice(this.sortedUpTo).sort();
		const merged: number[] = [];
		let i = 0;
		let j = 0;
		while (i < this.sorted.length || j < added.length) {
			const takeSorted = j === added.length || (i < this.sorted.length && this.terms[this.sorted[i]] < added[j]);
			merged.push(takeSorted ? this.sorted[i++] : this.termNumbers.get(added[j++])!);
		}
		this.sorted = merged;
		this.sortedUpTo = this.terms.length;
	}

	/** Writes the words with their postings renumbered by `renumber` (ascending; −1: the message is left out; null: as numbered). */
	write(writer: ByteWriter, renumber: Int32Array | null): void {
		const kept: Array<[term: string, ordinals: Int32Array]> = [];
		for (let number = 0; number < this.terms.length; number++) {
			const list = this.postings[number].subarray(0, this.counts[number]);
			let alive = list;
			if (renumber) {
				alive = new Int32Array(list.length);
				let found = 0;
				for (let i = 0; i < list.length; i++) if (renumber[list[i]] >= 0) alive[found++] = renumber[list[i]];
				alive = alive.subarray(0, found);
			}
			if (alive.length > 0) kept.push([this.terms[number], alive]);
		}
		writer.varint(kept.length);
		for (const [term, ordinals] of kept) {
			writer.string(term);
			writer.ascending(ordinals);
		}
	}

	/** The words and postings `write` wrote, for messages numbered below `messageCount`. */
	static read(reader: ByteReader, messageCount: number): TermIndex {
		const index = new TermIndex();
		const termCount = reader.varint();
		for (let number = 0; number < termCount; number++) {
			const term = reader.string();
			if (term === '' || index.termNumbers.has(term)) throw new DamagedIndexError('a word is empty or repeated');
			const ordinals = reader.ascending(messageCount);
			index.termNumbers.set(term, number);
			index.terms.push(term);
			index.postings.push(ordinals);
			index.counts.push(ordinals.length);
		}
		return index;
	}
}
