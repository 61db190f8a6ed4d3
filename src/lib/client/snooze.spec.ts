import { describe, expect, it } from 'vitest';
import { pickedSnooze, pickerBounds, snoozeChoices, toLocalInput } from './snooze';

describe('snooze choices (docs/inbox-api.md §4 "Lifecycle")', () => {
	it('offers an hour, tomorrow at 9 and the next Monday at 9, in the local time zone', () => {
		const wednesday = new Date(2026, 10, 25, 16, 30); // Wednesday 25 November 2026, 16:30 local
		const [, hour, tomorrow, monday] = snoozeChoices(wednesday);
		expect(hour.until.getTime() - wednesday.getTime()).toBe(3600_000);
		expect([tomorrow.until.getDate(), tomorrow.until.getHours(), tomorrow.until.getMinutes()]).toEqual([26, 9, 0]);
		expect([monday.until.getDay(), monday.until.getDate(), monday.until.getHours()]).toEqual([1, 30, 9]);
		// on a Monday, "Monday" is the next one
		const [, , , nextMonday] = snoozeChoices(new Date(2026, 10, 30, 8, 0));
		expect([nextMonday.until.getDate(), nextMonday.until.getMonth()]).toEqual([7, 11]);
	});
});

describe('a snooze picked to the minute (docs/inbox-api.md §4 "Lifecycle")', () => {
	const now = new Date(2026, 10, 25, 16, 30);

	it('offers 30 minutes first, and the picker from the next minute to a year ahead', () => {
		const [half] = snoozeChoices(now);
		expect([half.label, half.until.getTime() - now.getTime()]).toEqual(['For 30 minutes', 30 * 60_000]);
		expect(pickerBounds(now)).toEqual({ min: '2026-11-25T16:31', max: '2027-11-25T16:30' });
		expect(toLocalInput(new Date(2027, 0, 5, 7, 5))).toBe('2027-01-05T07:05');
	});

	it('reads the picked local time, and says why a time cannot be a snooze', () => {
		expect(pickedSnooze('2026-11-27T09:30', now)).toEqual({ until: new Date(2026, 10, 27, 9, 30) });
		expect(pickedSnooze('', now)).toEqual({ problem: 'Pick a date and a time.' });
		expect(pickedSnooze('2026-02-30T09:00', now)).toEqual({ problem: 'That date does not exist.' });
		expect(pickedSnooze('2026-11-25T16:30', now)).toEqual({ problem: 'Pick a time in the future.' });
		expect(pickedSnooze('2027-11-26T09:00', now)).toEqual({ problem: 'A snooze can last at most a year.' });
	});
});
