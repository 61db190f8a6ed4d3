/**
 * The part of a thread that is in the page (docs/search.md "Opening a result" and "The thread in the
 * page"): the newest entries when it opens, following what arrives; a few entries around a message
 * opened from search; growing by a step at the end the agent scrolls towards, and dropping entries at
 * the other end past `WINDOW_CAP`, so the page holds a bounded number of bubbles however long the
 * thread. Pure: the thread component keeps the window and renders `entries.slice(start, end)`.
 */

/** Entries shown when a thread opens, and while it follows the newest: the newest ones. */
export const WINDOW_NEWEST = 50;
/** Entries shown on each side of a message opened from search. */
export const WINDOW_SIDE = 30;
/** Entries added at one end each time the window grows. */
export const WINDOW_STEP = 50;
/** The most entries shown at once: growing past it drops entries at the other end. */
export const WINDOW_CAP = 150;

/** The keys of the first and last entries shown; entries are looked up by key as older pages come in above. */
export interface TimelineWindow {
	/** `null`: the newest `WINDOW_NEWEST` entries up to the last one. */
	readonly firstKey: string | null;
	/** `null`: up to the newest entry, following what arrives (at most `WINDOW_CAP` from the first). */
	readonly lastKey: string | null;
}

export interface ShownRange {
	/** First entry shown. */
	readonly start: number;
	/** One past the last entry shown. */
	readonly end: number;
}

interface Keyed {
	readonly key: string;
}

/** The newest entries, following what arrives. */
export const NEWEST_WINDOW: TimelineWindow = { firstKey: null, lastKey: null };

/**
 * What is shown of `entries`. A key no longer there (an entry replaced) counts as not given: the newest
 * entries at the top end, up to the newest at the bottom end.
 */
export function shownRange(entries: readonly Keyed[], window: TimelineWindow): ShownRange {
	const first = indexOfKey(entries, window.firstKey);
	const last = indexOfKey(entries, window.lastKey);
	if (first < 0) {
		const end = last < 0 ? entries.length : last + 1;
		return { start: Math.max(0, end - WINDOW_NEWEST), end };
	}
	const end = last < first ? entries.length : last + 1;
	return { start: first, end: Math.min(end, first + WINDOW_CAP) };
}

/** A window centred on the entry at `index`, `WINDOW_SIDE` entries each side. */
export function windowAround(entries: readonly Keyed[], index: number): TimelineWindow {
	return windowOf(entries, Math.max(0, index - WINDOW_SIDE), Math.min(entries.length, index + 1 + WINDOW_SIDE));
}

/** The window held where it is: entries that arrive no longer push its first entry out. */
export function pinned(entries: readonly Keyed[], window: TimelineWindow): TimelineWindow {
	if (window.firstKey !== null && indexOfKey(entries, window.firstKey) >= 0) return window;
	const { start, end } = shownRange(entries, window);
	return windowOf(entries, start, end);
}

/** The window with `WINDOW_STEP` more entries above, less the newest shown past `WINDOW_CAP`. */
export function grownUp(entries: readonly Keyed[], window: TimelineWindow): TimelineWindow {
	const { start, end } = shownRange(entries, window);
	const top = Math.max(0, start - WINDOW_STEP);
	return windowOf(entries, top, Math.min(end, top + WINDOW_CAP));
}

/** The window with `WINDOW_STEP` more entries below, less the oldest shown past `WINDOW_CAP`; following the newest once it reaches them. */
export function grownDown(entries: readonly Keyed[], window: TimelineWindow): TimelineWindow {
	const { start, end } = shownRange(entries, window);
	const bottom = Math.min(entries.length, end + WINDOW_STEP);
	return windowOf(entries, Math.max(start, bottom - WINDOW_CAP), bottom);
}

/**
 * The window of a view at the bottom when entries arrive: up to the newest, the oldest shown dropped
 * past `WINDOW_CAP`.
 */
export function followingNewest(entries: readonly Keyed[], window: TimelineWindow): TimelineWindow {
	if (window.firstKey === null && window.lastKey === null) return window;
	const { start } = shownRange(entries, window);
	return windowOf(entries, Math.max(start, entries.length - WINDOW_CAP), entries.length);
}

/** The window from `start` to `end`; one that reaches the newest entry follows what arrives. */
function windowOf(entries: readonly Keyed[], start: number, end: number): TimelineWindow {
	if (entries.length === 0) return NEWEST_WINDOW;
	return { firstKey: entries[start].key, lastKey: end >= entries.length ? null : entries[end - 1].key };
}

function indexOfKey(entries: readonly Keyed[], key: string | null): number {
	return key === null ? -1 : entries.findIndex((entry) => entry.key === key);
}
