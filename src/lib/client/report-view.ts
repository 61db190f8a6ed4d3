/**
 * What the Reports screen computes for display (docs/reports.md "The screen"): the default range (the
 * last 30 days, today included, in the browser's time zone), the request's query with `to` the day after
 * the last one shown, durations in human units, the first-response buckets' names, the weekday × hour
 * heatmap's cells, and the links and queries of the CSV tables and of the conversations behind a figure.
 */
import { queryString } from '../query-string';
import type {
	CurrentFigure,
	FirstResponseBucket,
	RangeFigure,
	ReportConversationQuery,
	ReportQuery,
	ReportTable,
	TargetShare
} from '../inbox-api/reports';

/** The range as the form shows it: both days included, and the IANA zone the days are in. */
export interface ShownRange {
	from: string;
	to: string;
	timeZone: string;
}

const DAY_MS = 86_400_000;

/** `day` (`YYYY-MM-DD`) moved by `days`, as calendar days (no time zone takes part). */
export function addDays(day: string, days: number): string {
	return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The calendar day of `now` in `timeZone`, `YYYY-MM-DD`. */
export function dayIn(now: Date, timeZone: string): string {
	const parts = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now);
	const part = (type: string) => parts.find((item) => item.type === type)?.value ?? '';
	return `${part('year')}-${part('month')}-${part('day')}`;
}

/** The last 30 days in `timeZone`, today the last of them. */
export function lastThirtyDays(now: Date, timeZone: string): ShownRange {
	const today = dayIn(now, timeZone);
	return { from: addDays(today, -29), to: today, timeZone };
}

/** The request's range: `to` is the day after the last one shown (the API's `to` is excluded). */
export function reportQuery(range: ShownRange): Required<ReportQuery> {
	return { from: range.from, to: addDays(range.to, 1), tz: range.timeZone };
}

/** The link that downloads one table of the report as CSV. */
export function csvHref(query: ReportQuery, table: ReportTable): string {
	return `/api/reports/csv${queryString({ from: query.from, to: query.to, tz: query.tz, table })}`;
}

/** What a click chose: a figure, narrowed to an agent, a label, a team, a bucket or an hour of a weekday, and its list's title in words. */
export type Drilldown = Omit<ReportConversationQuery, keyof ReportQuery> & { title: string };

/** The query of `GET /api/reports/conversations` for a click on the report of `query`. */
export function drilldownQuery(query: ReportQuery, drilldown: Drilldown): ReportConversationQuery {
	const { figure, agent, label, team, bucket, weekday, hour } = drilldown;
	return { from: query.from, to: query.to, tz: query.tz, figure, agent, label, team, bucket, weekday, hour };
}

/** A duration in seconds as a person reads it: "45 s", "12 min", "3 h 5 min", "2 d 4 h"; "—" when there is none. */
export function formatDuration(seconds: number | null): string {
	if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return '—';
	const whole = Math.round(seconds);
	if (whole < 60) return `${whole} s`;
	const minutes = Math.round(whole / 60);
	if (minutes < 60) return `${minutes} min`;
	const hours = Math.floor(minutes / 60);
	if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
	const days = Math.floor(hours / 24);
	return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** The first-response buckets' names on the screen. */
export const BUCKET_NAMES: Record<FirstResponseBucket, string> = {
	under1h: 'Under 1 h',
	'1to4h': '1–4 h',
	'4to8h': '4–8 h',
	'8to24h': '8–24 h',
	over24h: '24 h or more'
};

/** The counted figures' names on the screen. */
export const FIGURE_NAMES: Record<RangeFigure | CurrentFigure, string> = {
	opened: 'Opened',
	resolved: 'Resolved',
	reopened: 'Reopened',
	messagesIn: 'Messages in',
	messagesOut: 'Messages out',
	firstResponse: 'First responses',
	resolution: 'Resolutions',
	open: 'Open',
	unassigned: 'Unassigned',
	waiting: 'Waiting for a reply'
};

/** "75% (3 of 4)"; "—" when nothing was measured. */
export function shareText(share: TargetShare): string {
	if (share.measured === 0) return '—';
	return `${Math.round((100 * share.met) / share.measured)}% (${share.met.toLocaleString('en')} of ${share.measured.toLocaleString('en')})`;
}

export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/** One hour of one weekday: its count, and its shade from 0 (none) to 4 (the busiest hour's quarter). */
export interface HeatmapCell {
	weekday: number;
	hour: number;
	count: number;
	level: 0 | 1 | 2 | 3 | 4;
}

/** The heatmap's rows, Monday first, each of 24 cells; the shade is relative to the busiest hour. */
export function heatmapRows(heatmap: readonly (readonly number[])[]): { weekday: number; name: string; cells: HeatmapCell[] }[] {
	const max = Math.max(0, ...heatmap.flat());
	return WEEKDAYS.map((name, index) => ({
		weekday: index + 1,
		name,
		cells: Array.from({ length: 24 }, (_, hour) => {
			const count = heatmap[index]?.[hour] ?? 0;
			const level = (count === 0 ? 0 : Math.ceil((count / max) * 4)) as HeatmapCell['level'];
			return { weekday: index + 1, hour, count, level };
		})
	}));
}

/** "09:00–10:00" for the hour that starts at `hour`. */
export function hourSpan(hour: number): string {
	const pad = (value: number) => String(value).padStart(2, '0');
	return `${pad(hour)}:00–${pad((hour + 1) % 24)}:00`;
}
