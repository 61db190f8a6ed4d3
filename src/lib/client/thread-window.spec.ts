import { describe, expect, it } from 'vitest';
import {
	followingNewest,
	grownDown,
	grownUp,
	NEWEST_WINDOW,
	pinned,
	shownRange,
	windowAround,
	WINDOW_CAP,
	WINDOW_NEWEST,
	WINDOW_SIDE,
	WINDOW_STEP,
	type TimelineWindow
} from './thread-window';

/** Entries `m-from` … `m-(to - 1)`, oldest first. */
const entries = (from: number, to: number) => Array.from({ length: to - from }, (_, n) => ({ key: `m-${from + n}` }));

/** Grows `window` up `times` times over `thread`. */
function grownUpTimes(thread: ReturnType<typeof entries>, window: TimelineWindow, times: number): TimelineWindow {
	for (let n = 0; n < times; n++) window = grownUp(thread, window);
	return window;
}

describe('the part of a long thread in the page', () => {
	it('shows the newest entries and follows what arrives', () => {
		expect(shownRange(entries(0, 30), NEWEST_WINDOW)).toEqual({ start: 0, end: 30 });
		expect(shownRange(entries(0, 664), NEWEST_WINDOW)).toEqual({ start: 664 - WINDOW_NEWEST, end: 664 });
		expect(shownRange(entries(0, 665), NEWEST_WINDOW)).toEqual({ start: 665 - WINDOW_NEWEST, end: 665 });
		// older pages loaded meanwhile are not drawn
		expect(shownRange(entries(-200, 664), NEWEST_WINDOW)).toEqual({ start: 864 - WINDOW_NEWEST, end: 864 });
	});

	it('shows a few entries each side of a message opened from search', () => {
		const thread = entries(0, 230);
		expect(shownRange(thread, windowAround(thread, 100))).toEqual({ start: 100 - WINDOW_SIDE, end: 101 + WINDOW_SIDE });
		// at the first message, nothing above it
		expect(shownRange(thread, windowAround(thread, 0))).toEqual({ start: 0, end: 1 + WINDOW_SIDE });
		// at the newest, nothing below it, and what arrives is shown
		const atNewest = windowAround(thread, 229);
		expect(shownRange(thread, atNewest)).toEqual({ start: 229 - WINDOW_SIDE, end: 230 });
		expect(shownRange(entries(0, 231), atNewest)).toEqual({ start: 229 - WINDOW_SIDE, end: 231 });
	});

	it('grows upwards by a step, over an older page loaded above as well', () => {
		const thread = entries(0, 300);
		const once = grownUp(thread, NEWEST_WINDOW);
		expect(shownRange(thread, once)).toEqual({ start: 300 - WINDOW_NEWEST - WINDOW_STEP, end: 300 });
		// an older page comes in above: the same entries are shown, at their new places
		const withOlder = entries(-50, 300);
		expect(shownRange(withOlder, once)).toEqual({ start: 350 - WINDOW_NEWEST - WINDOW_STEP, end: 350 });
		expect(shownRange(withOlder, grownUp(withOlder, once)).start).toBe(350 - WINDOW_NEWEST - 2 * WINDOW_STEP);
		// at the first loaded entry it stays
		expect(shownRange(entries(0, 40), grownUp(entries(0, 40), NEWEST_WINDOW))).toEqual({ start: 0, end: 40 });
	});

	it('stays within the cap however far up it grows, dropping the newest shown', () => {
		const thread = entries(0, 664);
		const window = grownUpTimes(thread, NEWEST_WINDOW, 20);
		const range = shownRange(thread, window);
		expect(range).toEqual({ start: 0, end: WINDOW_CAP });
		// past the cap the newest are no longer followed: what arrives is not drawn
		expect(shownRange(entries(0, 665), window)).toEqual(range);
		let widest = 0;
		for (let grown = NEWEST_WINDOW, n = 0; n < 20; n++) {
			grown = grownUp(thread, grown);
			const { start, end } = shownRange(thread, grown);
			widest = Math.max(widest, end - start);
		}
		expect(widest).toBe(WINDOW_CAP);
	});

	it('grows downwards again, dropping the oldest shown, and follows the newest once it reaches them', () => {
		const thread = entries(0, 664);
		let window = grownUpTimes(thread, NEWEST_WINDOW, 20);
		window = grownDown(thread, window);
		expect(shownRange(thread, window)).toEqual({ start: WINDOW_STEP, end: WINDOW_CAP + WINDOW_STEP });
		for (let n = 0; n < 20 && window.lastKey !== null; n++) {
			window = grownDown(thread, window);
			const { start, end } = shownRange(thread, window);
			expect(end - start).toBeLessThanOrEqual(WINDOW_CAP);
		}
		expect(shownRange(thread, window)).toEqual({ start: 664 - WINDOW_CAP, end: 664 });
	});

	it('follows what arrives at the bottom within the cap, the oldest shown dropped', () => {
		const thread = entries(0, 664);
		const window = grownDown(thread, grownUpTimes(thread, NEWEST_WINDOW, 2));
		expect(shownRange(thread, window)).toEqual({ start: 664 - WINDOW_NEWEST - 2 * WINDOW_STEP, end: 664 });
		const arrived = entries(0, 670);
		expect(shownRange(arrived, followingNewest(arrived, window))).toEqual({ start: 670 - WINDOW_CAP, end: 670 });
		// a window within the cap keeps all it shows
		const short = grownUp(thread, NEWEST_WINDOW);
		expect(shownRange(arrived, followingNewest(arrived, short))).toEqual({ start: 664 - WINDOW_NEWEST - WINDOW_STEP, end: 670 });
		expect(followingNewest(arrived, NEWEST_WINDOW)).toBe(NEWEST_WINDOW);
	});

	it('holds its first entry when pinned, whatever arrives, up to the cap', () => {
		const thread = entries(0, 200);
		const held = pinned(thread, NEWEST_WINDOW);
		expect(shownRange(thread, held)).toEqual({ start: 200 - WINDOW_NEWEST, end: 200 });
		expect(shownRange(entries(0, 210), held)).toEqual({ start: 200 - WINDOW_NEWEST, end: 210 });
		expect(shownRange(entries(0, 400), held)).toEqual({ start: 200 - WINDOW_NEWEST, end: 200 - WINDOW_NEWEST + WINDOW_CAP });
		expect(pinned(thread, held)).toBe(held);
	});

	it('shows the newest when the entries it was kept by are gone', () => {
		const window = windowAround(entries(0, 230), 100);
		expect(shownRange(entries(1000, 1100), window)).toEqual({ start: 100 - WINDOW_NEWEST, end: 100 });
		expect(shownRange([], window)).toEqual({ start: 0, end: 0 });
		expect(grownUp([], window)).toEqual(NEWEST_WINDOW);
	});
});
