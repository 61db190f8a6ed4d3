/** Business hours (docs/service-targets.md "Business hours"): the value's rules and time measured inside the hours. */
import { describe, expect, it } from 'vitest';
import { BusinessCalendar, businessHoursProblem, zoneOffset, type BusinessHours } from './business-hours';

const nineToFive = { open: '09:00', close: '17:00' };
const berlin: BusinessHours = {
	timeZone: 'Europe/Berlin',
	week: [nineToFive, nineToFive, nineToFive, nineToFive, { open: '09:00', close: '13:00' }, null, null],
	holidays: ['2026-12-25']
};
const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

describe('business hours', () => {
	it('accepts a week in a zone with holidays, and names what is wrong otherwise', () => {
		expect(businessHoursProblem(berlin)).toBeNull();
		expect(businessHoursProblem({ ...berlin, week: [...berlin.week.slice(0, 6), { open: '00:00', close: '24:00' }] })).toBeNull();
		expect(businessHoursProblem(null)).toMatch(/must be an object/);
		expect(businessHoursProblem({ ...berlin, extra: 1 })).toBe('has an unknown field extra');
		expect(businessHoursProblem({ ...berlin, timeZone: 'Mars/Olympus' })).toMatch(/timeZone/);
		expect(businessHoursProblem({ ...berlin, week: berlin.week.slice(1) })).toMatch(/seven days/);
		expect(businessHoursProblem({ ...berlin, week: [{ open: '17:00', close: '09:00' }, ...berlin.week.slice(1)] })).toBe(
			'week[0] must open before it closes'
		);
		expect(businessHoursProblem({ ...berlin, week: [{ open: '9:00', close: '17:00' }, ...berlin.week.slice(1)] })).toMatch(/HH:MM/);
		expect(businessHoursProblem({ ...berlin, week: [{ open: '09:00' }, ...berlin.week.slice(1)] })).toMatch(/null \(closed\)/);
		expect(businessHoursProblem({ ...berlin, week: Array(7).fill(null) })).toMatch(/at least one day/);
		expect(businessHoursProblem({ ...berlin, holidays: ['2026-02-30'] })).toMatch(/holidays/);
		expect(businessHoursProblem({ ...berlin, holidays: 'none' })).toMatch(/holidays/);
	});

	it('counts only the open hours of the zone between two instants', () => {
		const calendar = new BusinessCalendar(berlin);
		// Monday 2026-11-23, 08:00 to 10:30 Berlin (UTC+1): 1.5 hours open.
		expect(calendar.between(at('2026-11-23T07:00:00Z'), at('2026-11-23T09:30:00Z'))).toBe(1.5 * HOUR);
		// Friday 12:00 to Monday 10:00: 1 hour on Friday (it closes at 13:00), none at the weekend, 1 on Monday.
		expect(calendar.between(at('2026-11-27T11:00:00Z'), at('2026-11-30T09:00:00Z'))).toBe(2 * HOUR);
		// Christmas (a Friday) is a holiday.
		expect(calendar.between(at('2026-12-24T08:00:00Z'), at('2026-12-26T08:00:00Z'))).toBe(8 * HOUR);
		expect(calendar.between(at('2026-11-28T10:00:00Z'), at('2026-11-29T10:00:00Z'))).toBe(0);
	});

	it('finds when a duration of open hours has passed, across nights, weekends and holidays', () => {
		const calendar = new BusinessCalendar(berlin);
		expect(calendar.after(at('2026-11-23T07:00:00Z'), HOUR)).toBe(at('2026-11-23T09:00:00Z'));
		expect(calendar.after(at('2026-11-23T15:30:00Z'), HOUR)).toBe(at('2026-11-24T08:30:00Z'));
		expect(calendar.after(at('2026-11-27T11:30:00Z'), HOUR)).toBe(at('2026-11-30T08:30:00Z'));
		expect(calendar.after(at('2026-12-24T15:00:00Z'), 2 * HOUR)).toBe(at('2026-12-28T09:00:00Z'));
	});

	it('follows the zone across a change of daylight saving time', () => {
		const calendar = new BusinessCalendar({ ...berlin, week: Array(7).fill(nineToFive), holidays: [] });
		// 2026-03-29: Berlin moves to UTC+2, so 09:00 is 07:00 UTC; the day before it was 08:00 UTC.
		expect(calendar.after(at('2026-03-28T16:00:00Z'), 2 * HOUR)).toBe(at('2026-03-29T09:00:00Z'));
		expect(calendar.between(at('2026-03-28T00:00:00Z'), at('2026-03-30T00:00:00Z'))).toBe(16 * HOUR);
	});

	it('says never when holidays close the team for longer than it looks ahead', () => {
		const mondays = Array.from({ length: 120 }, (_, week) =>
			new Date(at('2026-01-05T00:00:00Z') + week * 7 * 86_400_000).toISOString().slice(0, 10)
		);
		const calendar = new BusinessCalendar({ timeZone: 'UTC', week: [nineToFive, null, null, null, null, null, null], holidays: mondays });
		expect(calendar.after(at('2026-01-01T00:00:00Z'), HOUR)).toBeNull();
		expect(calendar.after(at('2028-06-01T00:00:00Z'), HOUR)).toBe(at('2028-06-05T10:00:00Z'));
	});
});

describe('open or closed', () => {
	it('says whether the team is open, and since when a closed stretch runs, across a weekend and a holiday', () => {
		const calendar = new BusinessCalendar(berlin);
		expect(calendar.isOpen(at('2026-11-23T08:00:00Z'))).toBe(true);
		expect(calendar.isOpen(at('2026-11-23T16:00:00Z'))).toBe(false);
		expect(calendar.isOpen(at('2026-11-23T07:59:59Z'))).toBe(false);
		expect(calendar.isOpen(at('2026-12-25T10:00:00Z'))).toBe(false);
		// Friday closes at 13:00 Berlin; Saturday and Sunday belong to the same stretch
		const friday = at('2026-11-27T12:00:00Z');
		expect(calendar.closedSince(at('2026-11-28T10:00:00Z'))).toBe(friday);
		expect(calendar.closedSince(at('2026-11-30T07:00:00Z'))).toBe(friday);
		// Monday evening: a new stretch
		expect(calendar.closedSince(at('2026-11-30T20:00:00Z'))).toBe(at('2026-11-30T16:00:00Z'));
		// before Christmas Eve's close, after the 24th's opening: the stretch began the 23rd evening
		expect(calendar.closedSince(at('2026-12-24T07:00:00Z'))).toBe(at('2026-12-23T16:00:00Z'));
		expect(calendar.closedSince(at('2026-12-25T10:00:00Z'))).toBe(at('2026-12-24T16:00:00Z'));
	});
});

describe('zone offsets', () => {
	const namers = new Map<string, Intl.DateTimeFormat>();
	/** The offset as the time zone database names it (`GMT+05:45`), read independently of the code under test. */
	function namedOffset(timeZone: string, instant: number): number {
		let namer = namers.get(timeZone);
		if (!namer) namers.set(timeZone, (namer = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })));
		const name = namer.formatToParts(instant).find((part) => part.type === 'timeZoneName')!.value;
		const match = /^GMT(?:([+-])(\d\d):(\d\d)(?::(\d\d))?)?$/.exec(name)!;
		if (!match[1]) return 0;
		const magnitude = (Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4] ?? 0)) * 1000;
		return match[1] === '-' ? -magnitude : magnitude;
	}

	it('match the time zone database, to the second around each change, in zones that change on odd hours and by odd amounts', () => {
		// Newfoundland changes at 02:00 local (a half hour in UTC), Lord Howe by 30 minutes, Chatham at 02:45,
		// Kathmandu not at all, São Paulo until 2019; the instants run through five years.
		const zones = ['America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Asia/Kathmandu', 'America/Sao_Paulo', 'Europe/Berlin'];
		const start = Date.parse('2017-01-01T00:00:00Z');
		const step = 8_237_000;
		let changes = 0;
		for (const timeZone of zones) {
			for (let instant = start; instant < start + 5 * 365 * 86_400_000; instant += step) {
				const named = namedOffset(timeZone, instant);
				expect(zoneOffset(timeZone, instant), `${timeZone} at ${new Date(instant).toISOString()}`).toBe(named);
				if (named === namedOffset(timeZone, instant + step)) continue;
				// the second of the change, then every second of the two minutes around it
				let [before, after] = [instant / 1000, (instant + step) / 1000];
				while (after - before > 1) {
					const middle = Math.floor((before + after) / 2);
					if (namedOffset(timeZone, middle * 1000) === named) before = middle;
					else after = middle;
				}
				changes++;
				for (let second = after - 60; second <= after + 60; second++)
					expect(zoneOffset(timeZone, second * 1000), `${timeZone} at ${new Date(second * 1000).toISOString()}`).toBe(
						namedOffset(timeZone, second * 1000)
					);
			}
		}
		// two a year in four of the zones for five years, and São Paulo's until 2019
		expect(changes).toBeGreaterThan(40);
	});
});
