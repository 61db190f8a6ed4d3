/**
 * The times a conversation can be snoozed until (docs/inbox-api.md §4 "Lifecycle"), in the agent's own
 * time zone: in an hour, tomorrow at 9, next Monday at 9. Pure.
 */
export interface SnoozeChoice {
	label: string;
	until: Date;
}

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
		{ label: 'For an hour', until: new Date(now.getTime() + 3600_000) },
		{ label: 'Until tomorrow, 9:00', until: atNine(tomorrow) },
		{ label: 'Until Monday, 9:00', until: atNine(monday) }
	];
}
