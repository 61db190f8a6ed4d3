/**
 * The report's tables as CSV (docs/reports.md "The API", `GET /api/reports/csv`): RFC 4180, one header
 * line, durations in seconds. A name that a spreadsheet would run as a formula is prefixed with `'`.
 */
import {
	FIRST_RESPONSE_BUCKETS,
	type ReportFigures,
	type ReportTable,
	type ServiceTargetShare,
	type TeamReport
} from '../../inbox-api/reports';

type Cell = string | number | null;

function cell(value: Cell): string {
	if (value === null) return '';
	if (typeof value === 'number') return String(value);
	const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
	return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const lines = (rows: readonly (readonly Cell[])[]) => rows.map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';

const FIGURE_HEADER = [
	'opened',
	'resolved',
	'reopened',
	'messagesIn',
	'messagesOut',
	'firstResponseCount',
	'firstResponseMedianSeconds',
	'firstResponseP90Seconds',
	'resolutionCount',
	'resolutionMedianSeconds',
	'resolutionP90Seconds',
	...FIRST_RESPONSE_BUCKETS.map(({ bucket }) => `firstResponse_${bucket}`)
];

function figureCells(figures: ReportFigures): Cell[] {
	const { firstResponse, resolution } = figures;
	return [
		figures.opened,
		figures.resolved,
		figures.reopened,
		figures.messagesIn,
		figures.messagesOut,
		firstResponse.count,
		firstResponse.median,
		firstResponse.p90,
		resolution.count,
		resolution.median,
		resolution.p90,
		...figures.firstResponseBuckets.map((entry) => entry.count)
	];
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** One table of the report as CSV text. */
export function reportTableCsv(report: TeamReport, table: ReportTable): string {
	switch (table) {
		case 'overall':
			return lines([FIGURE_HEADER, figureCells(report.overall)]);
		case 'byAgent':
		case 'byLabel':
		case 'byTeam':
			return lines([['key', 'name', ...FIGURE_HEADER], ...report[table].map((row) => [row.key, row.name, ...figureCells(row.figures)])]);
		case 'firstResponseBuckets':
			return lines([['bucket', 'count'], ...report.overall.firstResponseBuckets.map((entry) => [entry.bucket, entry.count])]);
		case 'heatmap':
			return lines([
				['weekday', ...Array.from({ length: 24 }, (_, hour) => `h${hour}`)],
				...report.heatmap.map((hours, day) => [WEEKDAYS[day], ...hours])
			]);
		case 'timeOnline':
			return lines([['key', 'name', 'seconds'], ...report.timeOnline.map((row) => [row.key, row.name, row.seconds])]);
		case 'current':
			return lines([['figure', 'count'], ...Object.entries(report.current)]);
		case 'serviceTargets': {
			const share = ({ firstResponse, resolution }: ServiceTargetShare): Cell[] => [
				firstResponse.met,
				firstResponse.measured,
				resolution.met,
				resolution.measured
			];
			const targets = report.serviceTargets;
			return lines([
				['key', 'name', 'firstResponseMet', 'firstResponseMeasured', 'resolutionMet', 'resolutionMeasured'],
				...(targets
					? [[null, 'overall', ...share(targets.overall)], ...targets.byAgent.map((row) => [row.key, row.name, ...share(row)])]
					: [])
			]);
		}
	}
}
