/**
 * The team reports' answers (docs/reports.md "The API"), declared once: the server's builder
 * (src/lib/server/reports/) returns them, a page's charts read them. Durations are in seconds; every
 * figure is computed from times, ids, states, authors, labels and assignees, never from text.
 */

/** The first-response buckets, in order: [0, 1 h), [1 h, 4 h), [4 h, 8 h), [8 h, 24 h), 24 h and more. */
export const FIRST_RESPONSE_BUCKETS = [
	{ bucket: 'under1h', fromSeconds: 0 },
	{ bucket: '1to4h', fromSeconds: 3600 },
	{ bucket: '4to8h', fromSeconds: 4 * 3600 },
	{ bucket: '8to24h', fromSeconds: 8 * 3600 },
	{ bucket: 'over24h', fromSeconds: 24 * 3600 }
] as const;
export type FirstResponseBucket = (typeof FIRST_RESPONSE_BUCKETS)[number]['bucket'];

/** The figures of a range that can be listed conversation by conversation (`GET /api/reports/conversations`). */
export const RANGE_FIGURES = ['opened', 'resolved', 'reopened', 'messagesIn', 'messagesOut', 'firstResponse', 'resolution'] as const;
export type RangeFigure = (typeof RANGE_FIGURES)[number];

/** The figures of now, listed the same way. */
export const CURRENT_FIGURES = ['open', 'unassigned', 'waiting'] as const;
export type CurrentFigure = (typeof CURRENT_FIGURES)[number];

/** A duration's spread: how many were measured, their median and 90th percentile in seconds (null when none). */
export interface DurationFigure {
	count: number;
	median: number | null;
	p90: number | null;
}

/** What happened in the range, for the whole team or one group (an agent, a label, a team). */
export interface ReportFigures {
	opened: number;
	resolved: number;
	reopened: number;
	messagesIn: number;
	messagesOut: number;
	firstResponse: DurationFigure;
	resolution: DurationFigure;
	/** How many first responses fell in each bucket, in the order of FIRST_RESPONSE_BUCKETS. */
	firstResponseBuckets: { bucket: FirstResponseBucket; count: number }[];
}

/** One group's row: `key` is the account id, label id or team id, `name` what the page shows. */
export interface ReportRow {
	key: string;
	name: string;
	figures: ReportFigures;
}

/** How long an account was online in the range (docs/reports.md "Time online"), in seconds. */
export interface TimeOnlineRow {
	key: string;
	name: string;
	seconds: number;
}

/** Of the range's facts of one kind that had a target, how many met it (docs/service-targets.md). */
export interface TargetShare {
	met: number;
	measured: number;
}

export type ServiceTargetShare = Record<'firstResponse' | 'resolution', TargetShare>;

/** The share of service targets met in the range, for the scope and by agent; null when the team has no targets. */
export interface ServiceTargetsReport {
	overall: ServiceTargetShare;
	byAgent: (ServiceTargetShare & { key: string; name: string })[];
}

/** Conversations as they are now: open (the team's state), open without an assignee, open with the customer's message last. */
export type CurrentFigures = Record<CurrentFigure, number>;

/** `GET /api/reports`: `self` when an agent asked (every figure is then of their own conversations and actions). */
export interface TeamReport {
	range: { from: string; to: string; timeZone: string };
	scope: 'team' | 'self';
	overall: ReportFigures;
	byAgent: ReportRow[];
	byLabel: ReportRow[];
	/** By the team each conversation is given to now (§4 "Teams"). */
	byTeam: ReportRow[];
	/** Customer messages by ISO weekday (index 0 = Monday) and hour (0–23) in the range's time zone. */
	heatmap: number[][];
	/** A row per account online in the range, by name (for an agent, their own). */
	timeOnline: TimeOnlineRow[];
	current: CurrentFigures;
	serviceTargets: ServiceTargetsReport | null;
}

/** The range of every report request: days `YYYY-MM-DD`, `to` the day after the last; `tz` UTC when left out. */
export interface ReportQuery {
	from: string;
	to: string;
	tz?: string;
}

/** The figure behind a list, and the group, bucket or hour it was clicked in. */
export interface ReportConversationQuery extends ReportQuery {
	figure: RangeFigure | CurrentFigure;
	agent?: string;
	label?: string;
	team?: string;
	bucket?: FirstResponseBucket;
	/** ISO weekday, 1 = Monday; with `hour`, for figure messagesIn. */
	weekday?: number;
	hour?: number;
}

/** The tables `GET /api/reports/csv?table=…` gives. */
export const REPORT_TABLES = [
	'overall',
	'byAgent',
	'byLabel',
	'byTeam',
	'firstResponseBuckets',
	'heatmap',
	'timeOnline',
	'current',
	'serviceTargets'
] as const;
export type ReportTable = (typeof REPORT_TABLES)[number];

/** `GET /api/reports/conversations`: the conversations behind one figure, newest event first. */
export interface ReportConversationPage {
	data: string[];
	hasMore: boolean;
}
