/**
 * Newest-first pages with opaque cursors, shared by the conversation list and the delivery log
 * (docs/contract-gaps.md §4, §9): ordered by creation time, then id, both descending.
 */
import { decodeCursor, encodeCursor } from './query';

export interface Page<T> {
	data: T[];
	nextCursor: string | null;
}

/** One page of `items` (any order) newest first, after `cursor` if given. */
export function newestFirstPage<T>(items: T[], key: (item: T) => [number, string], limit: number, cursor: string | undefined): Page<T> {
	const sorted = [...items].sort((a, b) => compareDescending(key(a), key(b)));
	let start = 0;
	if (cursor !== undefined) {
		const position = decodeCursor(cursor, (value) => value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'string');
		const after = position as [number, string];
		start = sorted.findIndex((item) => compareDescending(key(item), after) > 0);
		if (start < 0) start = sorted.length;
	}
	const data = sorted.slice(start, start + limit);
	const more = start + limit < sorted.length;
	return { data, nextCursor: more && data.length ? encodeCursor(key(data[data.length - 1])) : null };
}

function compareDescending(a: [number, string], b: [number, string]): number {
	if (a[0] !== b[0]) return b[0] - a[0];
	return a[1] < b[1] ? 1 : a[1] > b[1] ? -1 : 0;
}
