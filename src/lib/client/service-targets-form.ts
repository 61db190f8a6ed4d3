/**
 * The admins' form of business hours, service targets and the away reply (docs/service-targets.md "Settings"): the
 * settings' values as editable fields and back. Minutes are typed as text so an empty field means "none";
 * anything but a whole number is said before anything is sent.
 */
import { ContractError } from '../errors';
import type { AwayReply } from '../service-targets/away-reply';
import type { BusinessHours } from '../service-targets/business-hours';
import type { ServiceTargets } from '../service-targets/targets';

import { WEEKDAYS } from './report-view';

export { WEEKDAYS };

export interface DayFields {
	open: boolean;
	from: string;
	to: string;
}

export interface HoursFields {
	enabled: boolean;
	timeZone: string;
	days: DayFields[];
	/** One day `YYYY-MM-DD` per line. */
	holidays: string;
}

export interface LabelTargetFields {
	firstResponse: string;
	resolution: string;
}

export interface TargetFields {
	enabled: boolean;
	firstResponse: string;
	resolution: string;
	businessHoursOnly: boolean;
	byLabel: Record<string, LabelTargetFields>;
}

const WORKDAY: DayFields = { open: true, from: '09:00', to: '17:00' };

export function hoursFields(hours: BusinessHours | null, browserZone: string): HoursFields {
	if (!hours)
		return { enabled: false, timeZone: browserZone, days: WEEKDAYS.map((_, index) => ({ ...WORKDAY, open: index < 5 })), holidays: '' };
	return {
		enabled: true,
		timeZone: hours.timeZone,
		days: hours.week.map((day) => (day ? { open: true, from: day.open, to: day.close } : { ...WORKDAY, open: false })),
		holidays: hours.holidays.join('\n')
	};
}

export function hoursValue(fields: HoursFields): BusinessHours | null {
	if (!fields.enabled) return null;
	return {
		timeZone: fields.timeZone.trim(),
		week: fields.days.map((day) => (day.open ? { open: day.from, close: day.to } : null)),
		holidays: fields.holidays
			.split(/[\s,]+/)
			.map((day) => day.trim())
			.filter((day) => day !== '')
	};
}

const text = (minutes: number | null | undefined) => (typeof minutes === 'number' ? String(minutes) : '');

export function targetFields(targets: ServiceTargets | null): TargetFields {
	if (!targets) return { enabled: false, firstResponse: '60', resolution: '1440', businessHoursOnly: false, byLabel: {} };
	return {
		enabled: true,
		firstResponse: text(targets.firstResponseMinutes),
		resolution: text(targets.resolutionMinutes),
		businessHoursOnly: targets.businessHoursOnly,
		byLabel: Object.fromEntries(
			Object.entries(targets.byLabel).map(([labelId, own]) => [
				labelId,
				{ firstResponse: text(own.firstResponseMinutes), resolution: text(own.resolutionMinutes) }
			])
		)
	};
}

/** A typed number of minutes; empty: none; anything else: the field's problem. */
function minutesOf(value: string, field: string): number | null {
	const trimmed = value.trim();
	if (trimmed === '') return null;
	if (!/^\d{1,6}$/.test(trimmed) || Number(trimmed) < 1)
		throw new ContractError('INVALID_REQUEST', `${field} must be a whole number of minutes, or empty for none`);
	return Number(trimmed);
}

/** The targets the fields say, or null when off; throws `INVALID_REQUEST` naming a field that is no number of minutes. */
export function targetsValue(fields: TargetFields, labelNames: ReadonlyMap<string, string> = new Map()): ServiceTargets | null {
	if (!fields.enabled) return null;
	const byLabel: ServiceTargets['byLabel'] = {};
	for (const [labelId, own] of Object.entries(fields.byLabel)) {
		const name = labelNames.get(labelId) ?? labelId;
		const firstResponseMinutes = minutesOf(own.firstResponse, `${name}: first reply within`);
		const resolutionMinutes = minutesOf(own.resolution, `${name}: resolved within`);
		if (firstResponseMinutes === null && resolutionMinutes === null) continue;
		byLabel[labelId] = {
			...(firstResponseMinutes === null ? {} : { firstResponseMinutes }),
			...(resolutionMinutes === null ? {} : { resolutionMinutes })
		};
	}
	return {
		firstResponseMinutes: minutesOf(fields.firstResponse, 'First reply within'),
		resolutionMinutes: minutesOf(fields.resolution, 'Resolved within'),
		businessHoursOnly: fields.businessHoursOnly,
		byLabel
	};
}

export interface AwayFields {
	enabled: boolean;
	text: string;
	whenNobodyOnline: boolean;
}

export const awayFields = (reply: AwayReply | null): AwayFields =>
	reply ? { enabled: true, ...reply } : { enabled: false, text: '', whenNobodyOnline: false };

export const awayValue = (fields: AwayFields): AwayReply | null =>
	fields.enabled ? { text: fields.text, whenNobodyOnline: fields.whenNobodyOnline } : null;
