/**
 * The window of a virtualized list (10,000 conversations): which rows of a fixed row
 * height intersect the viewport, plus an overscan, so the page renders a few dozen rows at most.
 */

export interface VirtualWindow {
	/** First rendered row (inclusive). */
	start: number;
	/** Last rendered row (exclusive). */
	end: number;
	/** Offset of the first rendered row from the top of the list, in pixels. */
	offset: number;
	/** Height of the whole list, in pixels. */
	total: number;
}

export function virtualWindow(input: {
	scrollTop: number;
	viewport: number;
	rowHeight: number;
	count: number;
	overscan?: number;
}): VirtualWindow {
	const { rowHeight, count } = input;
	const overscan = input.overscan ?? 6;
	const total = Math.max(0, count * rowHeight);
	if (count === 0 || rowHeight <= 0) return { start: 0, end: 0, offset: 0, total };
	const scrollTop = Math.min(Math.max(0, input.scrollTop), Math.max(0, total - input.viewport));
	const first = Math.floor(scrollTop / rowHeight);
	const visible = Math.ceil(Math.max(0, input.viewport) / rowHeight) + 1;
	const start = Math.max(0, first - overscan);
	const end = Math.min(count, first + visible + overscan);
	return { start, end, offset: start * rowHeight, total };
}

/** The scrollTop that brings row `index` into view (keeping it when it already is). */
export function scrollToRow(input: { index: number; scrollTop: number; viewport: number; rowHeight: number }): number {
	const top = input.index * input.rowHeight;
	const bottom = top + input.rowHeight;
	if (top < input.scrollTop) return top;
	if (bottom > input.scrollTop + input.viewport) return bottom - input.viewport;
	return input.scrollTop;
}
