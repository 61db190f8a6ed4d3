/**
 * The team's business hours (docs/service-targets.md "Business hours"): opening hours per weekday in the
 * company's IANA time zone, and holidays on which the team is closed all day. Pure: it reads a
 * setting's value strictly and measures time inside those hours, for the server's reports and the
 * page's rows alike.
 */

/** One weekday's opening: `HH:MM` to `HH:MM` (`24:00` is the end of the day), or closed. */
export type DayHours = { open: string; close: string } | null;

export interface BusinessHours {
	/** An IANA zone, such as `Europe/Berlin`. */
	timeZone: string;
	/** Monday first, seven entries. */
	week: DayHours[];
	/** Days `YYYY-MM-DD` (in the zone) on which the team is closed. */
	holidays: string[];
}

export const MAX_HOLIDAYS = 400;

const DAY_MS = 86_400_000;
const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const DAY_PATTERN = /^\d{4}-\d\d-\d\d$/;

function minutesOf(time: string): number {
	return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

function isRealDay(value: unknown): value is string {
	if (typeof value !== 'string' || !DAY_PATTERN.test(value)) return false;
	const time = Date.parse(`${value}T00:00:00Z`);
	return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
}

/** Whether this runtime's time zone database knows `name`. */
export function isTimeZone(name: unknown): name is string {
	if (typeof name !== 'string' || name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
	try {
		new Intl.DateTimeFormat('en', { timeZone: name });
		return true;
	} catch {
		return false;
	}
}

function dayProblem(day: unknown, index: number): string | null {
	if (day === null) return null;
	const name = `week[${index}]`;
	if (typeof day !== 'object' || Array.isArray(day) || Object.keys(day).sort().join() !== 'close,open')
		return `${name} must be null (closed) or { open, close }`;
	const { open, close } = day as Record<string, unknown>;
	if (typeof open !== 'string' || typeof close !== 'string' || !TIME_PATTERN.test(open) || !TIME_PATTERN.test(close))
		return `${name}'s open and close must be times HH:MM`;
	return minutesOf(open) < minutesOf(close) ? null : `${name} must open before it closes`;
}

/** What is wrong with a business-hours value, or null when it is one. */
export function businessHoursProblem(value: unknown): string | null {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object { timeZone, week, holidays }';
	const { timeZone, week, holidays, ...rest } = value as Record<string, unknown>;
	if (Object.keys(rest).length > 0) return `has an unknown field ${Object.keys(rest)[0].slice(0, 64)}`;
	if (!isTimeZone(timeZone)) return 'timeZone must be an IANA time zone, such as Europe/Berlin';
	if (!Array.isArray(week) || week.length !== 7) return 'week must list seven days, Monday first';
	for (const [index, day] of week.entries()) {
		const problem = dayProblem(day, index);
		if (problem) return problem;
	}
	if (week.every((day) => day === null)) return 'week must open on at least one day';
	if (!Array.isArray(holidays) || holidays.length > MAX_HOLIDAYS || !holidays.every(isRealDay))
		return `holidays must be at most ${MAX_HOLIDAYS} days YYYY-MM-DD`;
	return null;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
const HOUR_MS = 3_600_000;
/** Per zone, its offset through each hour asked about (by `instant / HOUR_MS`), or null when it changes in that hour. */
const hourOffsets = new Map<string, Map<number, number | null>>();
/** Hours kept per zone: some years of them; past that the memory starts over. */
const MAX_HOURS_KEPT = 100_000;

/** The zone's offset from UTC at `instant`, in milliseconds, read from the time zone database. */
function lookUpOffset(timeZone: string, instant: number): number {
	let format = offsetFormats.get(timeZone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: 'numeric',
			day: 'numeric',
			hour: 'numeric',
			minute: 'numeric',
			second: 'numeric'
		});
		offsetFormats.set(timeZone, format);
	}
	const parts: Record<string, number> = {};
	for (const part of format.formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
	const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
	return wall - Math.floor(instant / 1000) * 1000;
}

/**
 * The zone's offset from UTC at `instant`, in milliseconds. The database is read once per hour of time
 * asked about (a count's or a report's thousands of instants fall in far fewer hours): an hour whose
 * first and last second have the same offset has it throughout, since no zone changes its offset twice
 * within an hour; one in which it changes is read for every instant.
 */
export function zoneOffset(timeZone: string, instant: number): number {
	let hours = hourOffsets.get(timeZone);
	if (!hours || hours.size >= MAX_HOURS_KEPT) {
		hours = new Map();
		hourOffsets.set(timeZone, hours);
	}
	const hour = Math.floor(instant / HOUR_MS);
	let offset = hours.get(hour);
	if (offset === undefined) {
		const first = lookUpOffset(timeZone, hour * HOUR_MS);
		offset = first === lookUpOffset(timeZone, (hour + 1) * HOUR_MS - 1000) ? first : null;
		hours.set(hour, offset);
	}
	return offset ?? lookUpOffset(timeZone, instant);
}

/** The instant a wall-clock time of the zone names (`wall` as if it were UTC); in a DST gap, the time after it. */
function zonedInstant(timeZone: string, wall: number): number {
	const first = wall - zoneOffset(timeZone, wall);
	return wall - zoneOffset(timeZone, first);
}

/**
 * A calendar of one business-hours value: each day's opening as instants, computed once per day. Make one
 * per value and reuse it across many measurements (a report measures thousands).
 */
export class BusinessCalendar {
	readonly #hours: BusinessHours;
	readonly #holidays: ReadonlySet<string>;
	readonly #openings = new Map<number, readonly [number, number] | null>();

	constructor(hours: BusinessHours) {
		this.#hours = hours;
		this.#holidays = new Set(hours.holidays);
	}

	/** The local day (midnight UTC of its date) of `instant` in the zone. */
	#dayOf(instant: number): number {
		const wall = instant + zoneOffset(this.#hours.timeZone, instant);
		return wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);
	}

	/** The opening `[start, end)` of a local day as instants, or null when closed. */
	#opening(day: number): readonly [number, number] | null {
		const known = this.#openings.get(day);
		if (known !== undefined) return known;
		const weekday = (new Date(day).getUTCDay() + 6) % 7;
		const hours = this.#hours.week[weekday];
		const opening =
			hours && !this.#holidays.has(new Date(day).toISOString().slice(0, 10))
				? ([
						zonedInstant(this.#hours.timeZone, day + minutesOf(hours.open) * 60_000),
						zonedInstant(this.#hours.timeZone, day + minutesOf(hours.close) * 60_000)
					] as const)
				: null;
		this.#openings.set(day, opening);
		return opening;
	}

	/** Milliseconds of `[from, to)` inside business hours. */
	between(from: number, to: number): number {
		let total = 0;
		for (let day = this.#dayOf(from); day <= this.#dayOf(to); day += DAY_MS) {
			const opening = this.#opening(day);
			if (!opening) continue;
			const start = Math.max(opening[0], from);
			const end = Math.min(opening[1], to);
			if (end > start) total += end - start;
		}
		return total;
	}

	/** Whether the team is open at `instant`. */
	isOpen(instant: number): boolean {
		const opening = this.#opening(this.#dayOf(instant));
		return opening !== null && opening[0] <= instant && instant < opening[1];
	}

	/**
	 * When the closed stretch around `instant` began: the end of the last opening before it (0 when none
	 * in the 800 days before). Two instants of one closed stretch give the same answer.
	 */
	closedSince(instant: number): number {
		const lastDay = this.#dayOf(instant);
		for (let day = lastDay; day > lastDay - 800 * DAY_MS; day -= DAY_MS) {
			const opening = this.#opening(day);
			if (opening && opening[1] <= instant) return opening[1];
		}
		return 0;
	}

	/**
	 * The instant at which `duration` milliseconds of business hours have passed since `from`, or null when
	 * the team stays closed for the next 800 days (only holidays can do that: some weekday opens).
	 */
	after(from: number, duration: number): number | null {
		let left = duration;
		const firstDay = this.#dayOf(from);
		for (let day = firstDay; day < firstDay + 800 * DAY_MS; day += DAY_MS) {
			const opening = this.#opening(day);
			if (!opening) continue;
			const start = Math.max(opening[0], from);
			if (opening[1] <= start) continue;
			if (left <= opening[1] - start) return start + left;
			left -= opening[1] - start;
		}
		return null;
	}
}
