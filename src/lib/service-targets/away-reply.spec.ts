/** The away reply's rules (docs/service-targets.md "Away reply"): the setting, and the period a customer's message falls in. */
import { describe, expect, it } from 'vitest';
import { awayPeriod, awayReplyProblem } from './away-reply';
import { BusinessCalendar } from './business-hours';

const at = (iso: string) => Date.parse(iso);
const weekdays = new BusinessCalendar({
	timeZone: 'UTC',
	week: [...Array(5).fill({ open: '09:00', close: '17:00' }), null, null],
	holidays: []
});

describe('the away reply', () => {
	it('takes a text of up to 2,000 characters and whether it also answers while nobody is online', () => {
		expect(awayReplyProblem({ text: 'We are away until Monday.', whenNobodyOnline: false })).toBeNull();
		expect(awayReplyProblem('away')).toMatch(/must be an object/);
		expect(awayReplyProblem({ text: '  ', whenNobodyOnline: false })).toBe('text must be 1 to 2000 characters');
		expect(awayReplyProblem({ text: 'x'.repeat(2_001), whenNobodyOnline: false })).toBe('text must be 1 to 2000 characters');
		expect(awayReplyProblem({ text: 'x', whenNobodyOnline: 'yes' })).toMatch(/whenNobodyOnline/);
		expect(awayReplyProblem({ text: 'x', whenNobodyOnline: true, html: '<b>' })).toBe('has an unknown field html');
	});

	it('answers once per closed stretch outside business hours, and while nobody is online once per reply', () => {
		const reply = { text: 'Away', whenNobodyOnline: false };
		const saturday = awayPeriod(reply, weekdays, at('2026-11-28T10:00:00Z'), false, null);
		expect(saturday).toBe('closed since 2026-11-27T17:00:00.000Z');
		expect(awayPeriod(reply, weekdays, at('2026-11-30T08:00:00Z'), false, null)).toBe(saturday);
		expect(awayPeriod(reply, weekdays, at('2026-11-30T10:00:00Z'), true, null)).toBeNull();
		expect(awayPeriod(reply, null, at('2026-11-28T10:00:00Z'), true, null)).toBeNull();
		const nobody = { ...reply, whenNobodyOnline: true };
		expect(awayPeriod(nobody, weekdays, at('2026-11-30T10:00:00Z'), false, null)).toBeNull();
		expect(awayPeriod(nobody, weekdays, at('2026-11-30T10:00:00Z'), true, null)).toBe('nobody online since the start');
		expect(awayPeriod(nobody, null, at('2026-11-30T10:00:00Z'), true, at('2026-11-30T09:30:00Z'))).toBe(
			'nobody online since 2026-11-30T09:30:00.000Z'
		);
	});
});
