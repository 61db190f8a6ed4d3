import { describe, expect, it } from 'vitest';
import type { ReportFigures, TeamReport } from '../../inbox-api/reports';
import { reportTableCsv } from './csv';

const figures = (opened: number): ReportFigures => ({
	opened,
	resolved: 2,
	reopened: 0,
	messagesIn: 5,
	messagesOut: 4,
	firstResponse: { count: 1, median: 90.5, p90: 90.5 },
	resolution: { count: 2, median: null, p90: null },
	firstResponseBuckets: [
		{ bucket: 'under1h', count: 1 },
		{ bucket: '1to4h', count: 0 },
		{ bucket: '4to8h', count: 0 },
		{ bucket: '8to24h', count: 0 },
		{ bucket: 'over24h', count: 0 }
	]
});

const report: TeamReport = {
	range: { from: '2026-02-01', to: '2026-03-01', timeZone: 'UTC' },
	scope: 'team',
	overall: figures(3),
	byAgent: [
		{ key: 'acc_1', name: 'Ann "the lead", Berlin', figures: figures(1) },
		{ key: 'acc_2', name: '=HYPERLINK("x")', figures: figures(2) }
	],
	byLabel: [],
	byTeam: [],
	heatmap: Array.from({ length: 7 }, (_, day) => Array.from({ length: 24 }, (_, hour) => (day === 6 && hour === 23 ? 9 : 0))),
	timeOnline: [{ key: 'acc_1', name: 'Ann "the lead", Berlin', seconds: 5400.5 }],
	current: { open: 4, unassigned: 1, waiting: 2 },
	serviceTargets: {
		overall: { firstResponse: { met: 3, measured: 4 }, resolution: { met: 1, measured: 2 } },
		byAgent: [{ key: 'acc_1', name: 'Ann "the lead", Berlin', firstResponse: { met: 3, measured: 4 }, resolution: { met: 0, measured: 0 } }]
	}
};

describe('the report as CSV (docs/reports.md "The API")', () => {
	it('writes each table with its header, quoting names and defusing formulas', () => {
		const header =
			'opened,resolved,reopened,messagesIn,messagesOut,firstResponseCount,firstResponseMedianSeconds,firstResponseP90Seconds,resolutionCount,resolutionMedianSeconds,resolutionP90Seconds,firstResponse_under1h,firstResponse_1to4h,firstResponse_4to8h,firstResponse_8to24h,firstResponse_over24h';
		expect(reportTableCsv(report, 'overall')).toBe(`${header}\r\n3,2,0,5,4,1,90.5,90.5,2,,,1,0,0,0,0\r\n`);
		expect(reportTableCsv(report, 'byAgent').split('\r\n')).toEqual([
			`key,name,${header}`,
			'acc_1,"Ann ""the lead"", Berlin",1,2,0,5,4,1,90.5,90.5,2,,,1,0,0,0,0',
			`acc_2,"'=HYPERLINK(""x"")",2,2,0,5,4,1,90.5,90.5,2,,,1,0,0,0,0`,
			''
		]);
		expect(reportTableCsv(report, 'byLabel')).toBe(`key,name,${header}\r\n`);
		expect(reportTableCsv(report, 'firstResponseBuckets')).toBe(
			'bucket,count\r\nunder1h,1\r\n1to4h,0\r\n4to8h,0\r\n8to24h,0\r\nover24h,0\r\n'
		);
		const heatmap = reportTableCsv(report, 'heatmap').split('\r\n');
		expect(heatmap[0]).toBe(`weekday,${Array.from({ length: 24 }, (_, hour) => `h${hour}`).join(',')}`);
		expect(heatmap[1]).toBe(`Monday,${Array(24).fill(0).join(',')}`);
		expect(heatmap[7]).toBe(`Sunday,${[...Array(23).fill(0), 9].join(',')}`);
		expect(reportTableCsv(report, 'timeOnline')).toBe('key,name,seconds\r\nacc_1,"Ann ""the lead"", Berlin",5400.5\r\n');
		expect(reportTableCsv(report, 'current')).toBe('figure,count\r\nopen,4\r\nunassigned,1\r\nwaiting,2\r\n');
		expect(reportTableCsv(report, 'serviceTargets').split('\r\n')).toEqual([
			'key,name,firstResponseMet,firstResponseMeasured,resolutionMet,resolutionMeasured',
			',overall,3,4,1,2',
			'acc_1,"Ann ""the lead"", Berlin",3,4,0,0',
			''
		]);
		expect(reportTableCsv({ ...report, serviceTargets: null }, 'serviceTargets')).toBe(
			'key,name,firstResponseMet,firstResponseMeasured,resolutionMet,resolutionMeasured\r\n'
		);
	});
});
