/** The admins' form of business hours and service targets (docs/service-targets.md "Settings"), and the list's deadline words. */
import { describe, expect, it } from 'vitest';
import { awayFields, awayValue, hoursFields, hoursValue, targetFields, targetsValue } from './service-targets-form';
import { countServiceViews, dueText, formatSpan, inServiceView } from './service-due';
import type { BusinessHours } from '../service-targets/business-hours';

describe('the service targets form', () => {
	it('starts business hours as Monday to Friday, nine to five, in the browser’s zone, and keeps a saved week', () => {
		const fresh = hoursFields(null, 'Europe/Berlin');
		expect(fresh.enabled).toBe(false);
		expect(hoursValue(fresh)).toBeNull();
		expect(hoursValue({ ...fresh, enabled: true })).toEqual({
			timeZone: 'Europe/Berlin',
			week: [...Array(5).fill({ open: '09:00', close: '17:00' }), null, null],
			holidays: []
		});
		const saved: BusinessHours = {
			timeZone: 'America/New_York',
			week: [{ open: '08:00', close: '20:00' }, null, null, null, null, null, { open: '10:00', close: '14:00' }],
			holidays: ['2026-12-25', '2027-01-01']
		};
		expect(hoursValue(hoursFields(saved, 'UTC'))).toEqual(saved);
		expect(hoursValue({ ...hoursFields(saved, 'UTC'), holidays: ' 2026-12-25, 2027-01-01\n\n' })?.holidays).toEqual([
			'2026-12-25',
			'2027-01-01'
		]);
	});

	it('reads empty minutes as no target, drops labels without one, and sends anything else as typed', () => {
		const fields = { ...targetFields(null), enabled: true };
		expect(targetsValue({ ...fields, enabled: false })).toBeNull();
		expect(targetsValue(fields)).toEqual({ firstResponseMinutes: 60, resolutionMinutes: 1440, businessHoursOnly: false, byLabel: {} });
		const edited = {
			...fields,
			resolution: ' ',
			byLabel: { lbl_vip: { firstResponse: '15', resolution: '' }, lbl_none: { firstResponse: '', resolution: '' } }
		};
		const value = targetsValue(edited);
		expect(value).toEqual({
			firstResponseMinutes: 60,
			resolutionMinutes: null,
			businessHoursOnly: false,
			byLabel: { lbl_vip: { firstResponseMinutes: 15 } }
		});
		expect(targetFields(value).byLabel).toEqual({ lbl_vip: { firstResponse: '15', resolution: '' } });
		expect(() => targetsValue({ ...fields, firstResponse: 'soon' })).toThrow(
			'First reply within must be a whole number of minutes, or empty for none'
		);
		expect(() => targetsValue({ ...fields, resolution: '0' })).toThrow(/^Resolved within must be/);
		expect(() =>
			targetsValue({ ...fields, byLabel: { lbl_vip: { firstResponse: '1.5', resolution: '' } } }, new Map([['lbl_vip', 'VIP']]))
		).toThrow(/^VIP: first reply within must be/);
	});
});

describe('the away reply form', () => {
	it('is off until enabled, and keeps a saved text and choice', () => {
		expect(awayValue(awayFields(null))).toBeNull();
		expect(awayValue({ ...awayFields(null), enabled: true, text: 'Back at nine.' })).toEqual({
			text: 'Back at nine.',
			whenNobodyOnline: false
		});
		const saved = { text: 'Nobody is here right now.', whenNobodyOnline: true };
		expect(awayValue(awayFields(saved))).toEqual(saved);
	});
});

describe('the list’s deadlines', () => {
	const due = { kind: 'firstResponse' as const, dueAt: '2026-11-23T11:00:00.000Z' };
	const at = (iso: string) => Date.parse(iso);

	it('words the time left or overdue, to the minute and rounded up', () => {
		expect(formatSpan(1)).toBe('1 min');
		expect(formatSpan(45 * 60_000)).toBe('45 min');
		expect(formatSpan(60 * 60_000)).toBe('1 h');
		expect(formatSpan(185 * 60_000)).toBe('3 h 5 min');
		expect(formatSpan(48 * 3_600_000)).toBe('2 d');
		expect(formatSpan(52 * 3_600_000 + 1)).toBe('2 d 4 h');
		expect(dueText(due, at('2026-11-23T10:15:00Z'))).toBe('Reply due in 45 min');
		expect(dueText({ ...due, kind: 'resolution' }, at('2026-11-23T13:00:00Z'))).toBe('Resolve overdue by 2 h');
	});

	it('puts each deadline in its view and counts them', () => {
		const dues = new Map([
			['c1', due],
			['c2', { ...due, dueAt: '2026-11-23T09:00:00.000Z' }],
			['c3', { ...due, dueAt: '2026-11-24T09:00:00.000Z' }]
		]);
		const now = at('2026-11-23T10:30:00Z');
		expect(countServiceViews(dues, now)).toEqual({ breaching: 1, overdue: 1 });
		expect(inServiceView('breaching', dues.get('c1'), now)).toBe(true);
		expect(inServiceView('overdue', dues.get('c1'), now)).toBe(false);
		expect(inServiceView('overdue', dues.get('c2'), now)).toBe(true);
		expect(inServiceView('breaching', undefined, now)).toBe(false);
		expect(inServiceView('', undefined, now)).toBe(true);
	});
});
