import { describe, expect, it } from 'vitest';
import { scrollToRow, virtualWindow } from './virtual';

describe('virtualWindow', () => {
	it('renders only the rows around the viewport', () => {
		const window = virtualWindow({ scrollTop: 7200, viewport: 720, rowHeight: 72, count: 10_000, overscan: 5 });
		expect(window).toEqual({ start: 95, end: 116, offset: 95 * 72, total: 720_000 });
		expect(window.end - window.start).toBeLessThan(30);
	});

	it('clamps at both ends', () => {
		expect(virtualWindow({ scrollTop: -50, viewport: 300, rowHeight: 50, count: 3 })).toEqual({ start: 0, end: 3, offset: 0, total: 150 });
		const last = virtualWindow({ scrollTop: 1e9, viewport: 500, rowHeight: 50, count: 100, overscan: 0 });
		expect(last.end).toBe(100);
		expect(last.start).toBe(90);
	});

	it('is empty for an empty list', () => {
		expect(virtualWindow({ scrollTop: 0, viewport: 500, rowHeight: 50, count: 0 })).toEqual({ start: 0, end: 0, offset: 0, total: 0 });
	});
});

describe('scrollToRow', () => {
	it('scrolls only as much as needed', () => {
		expect(scrollToRow({ index: 5, scrollTop: 0, viewport: 200, rowHeight: 50 })).toBe(100);
		expect(scrollToRow({ index: 1, scrollTop: 100, viewport: 200, rowHeight: 50 })).toBe(50);
		expect(scrollToRow({ index: 3, scrollTop: 100, viewport: 200, rowHeight: 50 })).toBe(100);
	});
});
