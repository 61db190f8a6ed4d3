/**
 * The part of a long thread that is in the page (docs/search.md "Opening a result"): a message opened
 * from search is shown with a few entries around it rather than with every page loaded on the way to
 * it, and the part grows as the agent scrolls or asks for more. Pure: the thread component keeps the
 * window and renders `entries.slice(start, end)`.
 */

/** Entries shown on each side of the centre when the window opens. */
export const WINDOW_SIDE = 30;
/** Entries added at one end each time the window grows. */
export const WINDOW_STEP = 50;

/** Entries shown around `centerKey`; `Infinity` on a side means up to that end of what is loaded. */
export interface TimelineWindow {
	readonly centerKey: string;
	readonly before: number;
	readonly after: number;
}

export interface ShownRange {
	/** First entry shown. */
	readonly start: number;
	/** One past the last entry shown. */
	readonly end: number;
}

/** A window centred on an entry, `WINDOW_SIDE` entries each side. */
export function windowAround(centerKey: string): TimelineWindow {
	return { centerKey, before: WINDOW_SIDE, after: WINDOW_SIDE };
}

/** A window on the newest entries that follows what arrives. */
export function windowAtEnd(centerKey: string): TimelineWindow {
	return { centerKey, before: WINDOW_SIDE, after: Infinity };
}

/**
 * What is shown of `count` entries. Without a window, all of them. While the centre is not loaded yet
 * (the pages on the way to a search result are still arriving), only the newest `WINDOW_STEP`: the
 * pages that arrive before it then cost nothing to draw.
 */
export function shownRange(count: number, window: TimelineWindow | null, centerIndex: number): ShownRange {
	if (!window) return { start: 0, end: count };
	if (centerIndex < 0) return { start: Math.max(0, count - WINDOW_STEP), end: count };
	return {
		start: Math.max(0, centerIndex - window.before),
		end: Math.min(count, centerIndex + 1 + window.after)
	};
}

/** The window with `WINDOW_STEP` more entries above; from the first loaded entry once it reaches it. */
export function grownUp(window: TimelineWindow, centerIndex: number): TimelineWindow {
	const before = window.before + WINDOW_STEP;
	return { ...window, before: before >= centerIndex ? Infinity : before };
}

/** The window with `WINDOW_STEP` more entries below; following the newest once it reaches them. */
export function grownDown(window: TimelineWindow, centerIndex: number, count: number): TimelineWindow {
	const after = window.after + WINDOW_STEP;
	return { ...window, after: centerIndex + 1 + after >= count ? Infinity : after };
}
