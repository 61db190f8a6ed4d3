/**
 * Service targets (docs/service-targets.md): how long the team may take to answer a customer first
 * (from the conversation's first customer message to the first reply) and to resolve a conversation
 * (from its start to its resolution), for everyone or per label, in calendar time or business hours.
 * Pure: it reads the setting's value strictly, gives a conversation its deadline, and says whether a
 * measured time met its target — the same rules for the page's rows and the server's reports.
 */
import { BusinessCalendar, type BusinessHours } from './business-hours';

/** Minutes; null: no target. */
export interface TargetMinutes {
	firstResponseMinutes: number | null;
	resolutionMinutes: number | null;
}

export interface ServiceTargets extends TargetMinutes {
	/** Count only business hours (when the team has them; calendar time otherwise). */
	businessHoursOnly: boolean;
	/** A label's own targets, by label id; a conversation with several takes the shortest of each. */
	byLabel: Record<string, Partial<TargetMinutes>>;
}

export type TargetKind = 'firstResponse' | 'resolution';

/** The longest target: a year. */
export const MAX_TARGET_MINUTES = 525_600;
export const MAX_LABEL_TARGETS = 200;

const isMinutes = (value: unknown) =>
	value === null || (Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_TARGET_MINUTES);
const MINUTES_RULE = `null (none) or a whole number of minutes from 1 to ${MAX_TARGET_MINUTES}`;

function labelProblem(labelId: string, value: unknown): string | null {
	if (!/^lbl_[A-Za-z0-9_-]{1,64}$/.test(labelId)) return `byLabel has a key that is no label id: ${labelId.slice(0, 64)}`;
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return `byLabel.${labelId} must be an object`;
	for (const [name, minutes] of Object.entries(value)) {
		if (name !== 'firstResponseMinutes' && name !== 'resolutionMinutes')
			return `byLabel.${labelId} has an unknown field ${name.slice(0, 64)}`;
		if (!isMinutes(minutes)) return `byLabel.${labelId}.${name} must be ${MINUTES_RULE}`;
	}
	return null;
}

/** What is wrong with a service-targets value, or null when it is one. */
export function serviceTargetsProblem(value: unknown): string | null {
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		return 'must be an object { firstResponseMinutes, resolutionMinutes, businessHoursOnly, byLabel }';
	const { firstResponseMinutes, resolutionMinutes, businessHoursOnly, byLabel, ...rest } = value as Record<string, unknown>;
	if (Object.keys(rest).length > 0) return `has an unknown field ${Object.keys(rest)[0].slice(0, 64)}`;
	if (!isMinutes(firstResponseMinutes)) return `firstResponseMinutes must be ${MINUTES_RULE}`;
	if (!isMinutes(resolutionMinutes)) return `resolutionMinutes must be ${MINUTES_RULE}`;
	if (typeof businessHoursOnly !== 'boolean') return 'businessHoursOnly must be true or false';
	if (typeof byLabel !== 'object' || byLabel === null || Array.isArray(byLabel)) return 'byLabel must be an object of label ids';
	const entries = Object.entries(byLabel);
	if (entries.length > MAX_LABEL_TARGETS) return `byLabel may name at most ${MAX_LABEL_TARGETS} labels`;
	for (const [labelId, targets] of entries) {
		const problem = labelProblem(labelId, targets);
		if (problem) return problem;
	}
	return null;
}

const MINUTE_MS = 60_000;

/** The team's targets with the calendar they are measured in. */
export interface TargetPolicy {
	targets: ServiceTargets;
	/** Business hours when the targets count only those; null: calendar time. */
	calendar: BusinessCalendar | null;
}

export function targetPolicy(targets: ServiceTargets | null, hours: BusinessHours | null): TargetPolicy | null {
	if (!targets) return null;
	return { targets, calendar: targets.businessHoursOnly && hours ? new BusinessCalendar(hours) : null };
}

const FIELD: Record<TargetKind, keyof TargetMinutes> = { firstResponse: 'firstResponseMinutes', resolution: 'resolutionMinutes' };

/** The target of one kind for a conversation with these labels, in minutes; null when none applies. */
export function targetMinutes(targets: ServiceTargets, kind: TargetKind, labels: readonly string[]): number | null {
	const field = FIELD[kind];
	const ofLabels = labels
		.map((label) => targets.byLabel[label]?.[field])
		.filter((minutes): minutes is number => typeof minutes === 'number');
	return ofLabels.length > 0 ? Math.min(...ofLabels) : targets[field];
}

/** The time the target allows from `start` (ms since the epoch), or null when the team stays closed. */
function deadline(policy: TargetPolicy, start: number, minutes: number): number | null {
	return policy.calendar ? policy.calendar.after(start, minutes * MINUTE_MS) : start + minutes * MINUTE_MS;
}

/** Whether a measured time from `start` to `end` met its target. */
export function metTarget(policy: TargetPolicy, kind: TargetKind, labels: readonly string[], start: number, end: number): boolean | null {
	const minutes = targetMinutes(policy.targets, kind, labels);
	if (minutes === null) return null;
	const taken = policy.calendar ? policy.calendar.between(start, end) : end - start;
	return taken <= minutes * MINUTE_MS;
}

/** What a conversation's row needs to know of its service times. */
export interface ServiceClock {
	labels: readonly string[];
	teamState: 'open' | 'snoozed' | 'resolved';
	/** When the conversation began (the report's start of a resolution). */
	createdAt: string;
	/** The customer's first message ever, or null. */
	firstCustomerAt: string | null;
	/** The first reply at or after it, or null. */
	firstReplyAt: string | null;
}

export interface ServiceDue {
	kind: TargetKind;
	/** ISO time; past it, the target is missed. */
	dueAt: string;
}

/**
 * The next deadline of a conversation the team still has work on: its first response until someone
 * answered, then its resolution. Null when it is resolved or snoozed, or no target applies.
 */
export function serviceDue(policy: TargetPolicy | null, clock: ServiceClock): ServiceDue | null {
	if (!policy || clock.teamState !== 'open') return null;
	const candidates: [TargetKind, string][] = [];
	if (clock.firstCustomerAt && !clock.firstReplyAt) candidates.push(['firstResponse', clock.firstCustomerAt]);
	candidates.push(['resolution', clock.createdAt]);
	for (const [kind, start] of candidates) {
		const minutes = targetMinutes(policy.targets, kind, clock.labels);
		if (minutes === null) continue;
		const due = deadline(policy, Date.parse(start), minutes);
		if (due !== null) return { kind, dueAt: new Date(due).toISOString() };
	}
	return null;
}

/** A deadline within this long is "breaching soon". */
export const BREACHING_SOON_MS = 3_600_000;

export type DueState = 'overdue' | 'breaching' | 'onTrack';

export function dueState(due: ServiceDue, now: number): DueState {
	const left = Date.parse(due.dueAt) - now;
	return left < 0 ? 'overdue' : left <= BREACHING_SOON_MS ? 'breaching' : 'onTrack';
}
