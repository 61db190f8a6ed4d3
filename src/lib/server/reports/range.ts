/**
 * A report's range (docs/reports.md "The API"): the days [from, to) of an IANA time zone, at most
 * MAX_REPORT_DAYS long; anything else is `400 INVALID_REQUEST` naming the parameter.
 */
import { ContractError } from '../../errors';

export interface ReportRange {
	/** The first day, `YYYY-MM-DD`. */
	from: string;
	/** The day after the last, `YYYY-MM-DD`. */
	to: string;
	timeZone: string;
}

/** The longest range: a leap year. */
export const MAX_REPORT_DAYS = 366;

const DAY_MS = 24 * 3600_000;

/** The day `value` names as midnight UTC, or null when it is not a real `YYYY-MM-DD` day. */
function dayOf(value: string | null): number | null {
	if (value === null || !/^\d{4}-\d\d-\d\d$/.test(value)) return null;
	const time = Date.parse(`${value}T00:00:00Z`);
	return Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value ? null : time;
}

/** Whether this runtime's time zone database knows `name` (the database's is the same IANA one). */
function knownTimeZone(name: string): boolean {
	if (name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
	try {
		new Intl.DateTimeFormat('en', { timeZone: name });
		return true;
	} catch {
		return false;
	}
}

/** Reads `from`, `to` and `tz` (default UTC) of a report's query. */
export function parseReportRange(search: URLSearchParams): ReportRange {
	const from = search.get('from');
	const to = search.get('to');
	const timeZone = search.get('tz') ?? 'UTC';
	const start = dayOf(from);
	const end = dayOf(to);
	if (start === null) throw new ContractError('INVALID_REQUEST', 'from must be a day, YYYY-MM-DD');
	if (end === null) throw new ContractError('INVALID_REQUEST', 'to must be a day, YYYY-MM-DD');
	if (end <= start) throw new ContractError('INVALID_REQUEST', 'to must be after from');
	if ((end - start) / DAY_MS > MAX_REPORT_DAYS)
		throw new ContractError('INVALID_REQUEST', `the range must be at most ${MAX_REPORT_DAYS} days`);
	if (!knownTimeZone(timeZone)) throw new ContractError('INVALID_REQUEST', 'tz must be an IANA time zone, such as Europe/Berlin');
	return { from: from!, to: to!, timeZone };
}
