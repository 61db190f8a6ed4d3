import { describe, expect, it } from 'vitest';
import {
	addDays,
	csvHref,
	dayIn,
	drilldownQuery,
	formatDuration,
	heatmapRows,
	hourSpan,
	lastThirtyDays,
	reportQuery,
	shareText
} from './report-view';

describe('the Reports screen', () => {
	it('moves days across months, years and a leap day', () => {
		expect(addDays('2026-01-31', 1)).toBe('2026-02-01');
		expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
		expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
		expect(addDays('2026-03-29', -29)).toBe('2026-02-28');
	});

	it("takes today in the report's time zone, not the machine's", () => {
		const now = new Date('2026-11-22T23:30:00Z');
		expect(dayIn(now, 'UTC')).toBe('2026-11-22');
		expect(dayIn(now, 'Europe/Berlin')).toBe('2026-11-23');
		expect(dayIn(now, 'America/Los_Angeles')).toBe('2026-11-22');
	});

	it('defaults to the last 30 days with today the last, and asks the API for the day after it', () => {
		const range = lastThirtyDays(new Date('2026-11-22T23:30:00Z'), 'Europe/Berlin');
		expect(range).toEqual({ from: '2026-10-25', to: '2026-11-23', timeZone: 'Europe/Berlin' });
		expect(reportQuery(range)).toEqual({ from: '2026-10-25', to: '2026-11-24', tz: 'Europe/Berlin' });
	});

	it('links each table to its CSV and each click to the conversations behind it, leaving out what it is not narrowed by', () => {
		const query = { from: '2026-10-01', to: '2026-11-01', tz: 'Europe/Berlin' };
		expect(csvHref(query, 'byAgent')).toBe('/api/reports/csv?from=2026-10-01&to=2026-11-01&tz=Europe%2FBerlin&table=byAgent');
		expect(drilldownQuery(query, { figure: 'firstResponse', bucket: '1to4h', title: 'First responses · 1–4 h' })).toEqual({
			...query,
			figure: 'firstResponse',
			agent: undefined,
			label: undefined,
			bucket: '1to4h',
			weekday: undefined,
			hour: undefined
		});
		expect(drilldownQuery(query, { figure: 'messagesIn', weekday: 7, hour: 0, agent: 'acc_1', title: '' })).toMatchObject({
			figure: 'messagesIn',
			weekday: 7,
			hour: 0,
			agent: 'acc_1'
		});
	});

	it('says durations in the largest units that keep them short', () => {
		expect(formatDuration(null)).toBe('—');
		expect(formatDuration(0)).toBe('0 s');
		expect(formatDuration(59.4)).toBe('59 s');
		expect(formatDuration(60)).toBe('1 min');
		expect(formatDuration(1560)).toBe('26 min');
		expect(formatDuration(3599)).toBe('1 h');
		expect(formatDuration(5460.5)).toBe('1 h 31 min');
		expect(formatDuration(10800)).toBe('3 h');
		expect(formatDuration(86_399)).toBe('1 d');
		expect(formatDuration(180_000)).toBe('2 d 2 h');
		expect(formatDuration(-1)).toBe('—');
		expect(formatDuration(Number.NaN)).toBe('—');
	});

	it('shades each hour of the heatmap by its share of the busiest one, Monday first', () => {
		const heatmap = Array.from({ length: 7 }, () => Array.from({ length: 24 }, () => 0));
		heatmap[0][9] = 8;
		heatmap[0][10] = 1;
		heatmap[6][23] = 4;
		heatmap[2][12] = 6;
		const rows = heatmapRows(heatmap);
		expect(rows.map((row) => row.name)).toEqual(['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']);
		expect(rows[0].cells[9]).toEqual({ weekday: 1, hour: 9, count: 8, level: 4 });
		expect(rows[0].cells[10].level).toBe(1);
		expect(rows[2].cells[12].level).toBe(3);
		expect(rows[6].cells[23]).toEqual({ weekday: 7, hour: 23, count: 4, level: 2 });
		expect(rows[1].cells[0].level).toBe(0);
		expect(rows.every((row) => row.cells.length === 24)).toBe(true);
		expect(heatmapRows([]).flatMap((row) => row.cells.map((cell) => cell.level))).toEqual(Array(168).fill(0));
	});

	it('names an hour by its span', () => {
		expect(hourSpan(9)).toBe('09:00–10:00');
		expect(hourSpan(23)).toBe('23:00–00:00');
	});

	it('words a share of targets met as a percentage with its counts', () => {
		expect(shareText({ met: 3, measured: 4 })).toBe('75% (3 of 4)');
		expect(shareText({ met: 2, measured: 3 })).toBe('67% (2 of 3)');
		expect(shareText({ met: 1200, measured: 1200 })).toBe('100% (1,200 of 1,200)');
		expect(shareText({ met: 0, measured: 0 })).toBe('—');
	});
});
