/**
 * The times a conversation can be snoozed until (docs/inbox-api.md §4 "Lifecycle"), in the agent's own
 * time zone: in 30 minutes, in an hour, tomorrow at 9, next Monday at 9, or any time the agent picks
 * within the coming year (the server's limit). Pure.
 */
export interface SnoozeChoice {
	label: string;
	until: Date;
}

/** The server refuses a snooze further away than a year. */
const MAX_SNOOZE_DAYS = 365;

function atNine(day: Date): Date {
	const at = new Date(day);
	at.setHours(9, 0, 0, 0);
	return at;
}

export function snoozeChoices(now: Date): SnoozeChoice[] {
	const tomorrow = new Date(now);
	tomorrow.setDate(now.getDate() + 1);
	const monday = new Date(now);
	monday.setDate(now.getDate() + ((8 - now.getDay()) % 7 || 7));
	return [
		{ label: 'For 30 minutes', until: new Date(now.getTime() + 30 * 60_000) },
		{ label: 'For an hour', until: new Date(now.getTime() + 3600_000) },
		{ label: 'Until tomorrow, 9:00', until: atNine(tomorrow) },
		{ label: 'Until Monday, 9:00', until: atNine(monday) }
	];
}

/** A local time as `<input type="datetime-local">` reads and writes it: `2026-11-27T09:30`. */
export function toLocalInput(at: Date): string {
	const pad = (n: number) => String(n).padStart(2, '0');
	return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** The furthest a snooze may end. */
function latestSnooze(now: Date): Date {
	const latest = new Date(now);
	latest.setDate(now.getDate() + MAX_SNOOZE_DAYS);
	return latest;
}

/** The bounds of the picker: from the next minute to a year from now. */
export function pickerBounds(now: Date): { min: string; max: string } {
	return { min: toLocalInput(new Date(now.getTime() + 60_000)), max: toLocalInput(latestSnooze(now)) };
}

/** The picked local time as a Date, or why it cannot be a snooze. */
export function pickedSnooze(value: string, now: Date): { until: Date } | { problem: string } {
	const match = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)$/.exec(value);
	if (!match) return { problem: 'Pick a date and a time.' };
	const [year, month, day, hours, minutes] = match.slice(1).map(Number);
	const until = new Date(year, month - 1, day, hours, minutes);
	if (until.getMonth() !== month - 1 || until.getDate() !== day) return { problem: 'That date does not exist.' };
	if (until <= now) return { problem: 'Pick a time in the future.' };
	if (until > latestSnooze(now)) return { problem: 'A snooze can last at most a year.' };
	return { until };
}
