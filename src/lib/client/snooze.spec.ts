import { describe, expect, it } from 'vitest';
import { snoozeChoices } from './snooze';

describe('snooze choices (docs/inbox-api.md §4 "Lifecycle")', () => {
	it('offers an hour, tomorrow at 9 and the next Monday at 9, in the local time zone', () => {
		const wednesday = new Date(2026, 10, 25, 16, 30); // Wednesday 25 November 2026, 16:30 local
		const [hour, tomorrow, monday] = snoozeChoices(wednesday);
		expect(hour.until.getTime() - wednesday.getTime()).toBe(3600_000);
		expect([tomorrow.until.getDate(), tomorrow.until.getHours(), tomorrow.until.getMinutes()]).toEqual([26, 9, 0]);
		expect([monday.until.getDay(), monday.until.getDate(), monday.until.getHours()]).toEqual([1, 30, 9]);
		// on a Monday, "Monday" is the next one
		const [, , nextMonday] = snoozeChoices(new Date(2026, 10, 30, 8, 0));
		expect([nextMonday.until.getDate(), nextMonday.until.getMonth()]).toEqual([7, 11]);
	});
});
