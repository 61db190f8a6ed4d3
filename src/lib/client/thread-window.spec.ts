import { describe, expect, it } from 'vitest';
import { grownDown, grownUp, shownRange, windowAround, windowAtEnd, WINDOW_SIDE, WINDOW_STEP } from './thread-window';

describe('the part of a long thread in the page', () => {
	it('shows every entry without a window', () => {
		expect(shownRange(230, null, -1)).toEqual({ start: 0, end: 230 });
	});

	it('shows a few entries each side of a message opened from search', () => {
		const window = windowAround('m-100');
		expect(shownRange(230, window, 100)).toEqual({ start: 100 - WINDOW_SIDE, end: 101 + WINDOW_SIDE });
		// at the first message, nothing above it
		expect(shownRange(230, window, 0)).toEqual({ start: 0, end: 1 + WINDOW_SIDE });
		// at the newest, nothing below it
		expect(shownRange(230, window, 229)).toEqual({ start: 229 - WINDOW_SIDE, end: 230 });
	});

	it('draws only the newest entries while the pages on the way to the message arrive', () => {
		expect(shownRange(50, windowAround('m-0'), -1)).toEqual({ start: 0, end: 50 });
		expect(shownRange(250, windowAround('m-0'), -1)).toEqual({ start: 250 - WINDOW_STEP, end: 250 });
	});

	it('grows upwards by a step, then takes everything above once it reaches the first loaded entry', () => {
		const once = grownUp(windowAround('m-200'), 200);
		expect(once.before).toBe(WINDOW_SIDE + WINDOW_STEP);
		expect(shownRange(230, once, 200).start).toBe(200 - WINDOW_SIDE - WINDOW_STEP);
		const atTop = grownUp(windowAround('m-60'), 60);
		expect(atTop.before).toBe(Infinity);
		// an older page loaded afterwards is shown in full above the centre
		expect(shownRange(430, atTop, 260).start).toBe(0);
	});

	it('grows downwards by a step, then follows the newest once it reaches them', () => {
		const once = grownDown(windowAround('m-0'), 0, 230);
		expect(once.after).toBe(WINDOW_SIDE + WINDOW_STEP);
		expect(shownRange(230, once, 0).end).toBe(1 + WINDOW_SIDE + WINDOW_STEP);
		const atEnd = grownDown(windowAround('m-180'), 180, 230);
		expect(atEnd.after).toBe(Infinity);
		// a message that arrives afterwards is shown
		expect(shownRange(231, atEnd, 180).end).toBe(231);
	});

	it('follows the newest from the last entry', () => {
		const window = windowAtEnd('m-229');
		expect(shownRange(230, window, 229)).toEqual({ start: 229 - WINDOW_SIDE, end: 230 });
		expect(shownRange(240, window, 229).end).toBe(240);
	});
});
