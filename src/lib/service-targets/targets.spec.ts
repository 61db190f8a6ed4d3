/** Service targets (docs/service-targets.md): the value's rules, each conversation's deadline, and whether a time met its target. */
import { describe, expect, it } from 'vitest';
import type { BusinessHours } from './business-hours';
import {
	dueState,
	metTarget,
	serviceDue,
	serviceTargetsProblem,
	targetMinutes,
	targetPolicy,
	type ServiceClock,
	type ServiceTargets
} from './targets';

const targets: ServiceTargets = {
	firstResponseMinutes: 60,
	resolutionMinutes: 24 * 60,
	businessHoursOnly: false,
	byLabel: { lbl_vip: { firstResponseMinutes: 15 }, lbl_slow: { firstResponseMinutes: 240, resolutionMinutes: null } }
};
const weekdays: BusinessHours = {
	timeZone: 'UTC',
	week: [...Array(5).fill({ open: '09:00', close: '17:00' }), null, null],
	holidays: []
};
const open = (fields: Partial<ServiceClock>): ServiceClock => ({
	labels: [],
	teamState: 'open',
	createdAt: '2026-11-23T10:00:00.000Z',
	firstCustomerAt: '2026-11-23T10:00:00.000Z',
	firstReplyAt: null,
	...fields
});

describe('service targets', () => {
	it('accepts targets in minutes with label overrides, and names what is wrong otherwise', () => {
		expect(serviceTargetsProblem(targets)).toBeNull();
		expect(serviceTargetsProblem({ ...targets, firstResponseMinutes: null, resolutionMinutes: null, byLabel: {} })).toBeNull();
		expect(serviceTargetsProblem([])).toMatch(/must be an object/);
		expect(serviceTargetsProblem({ ...targets, sla: 1 })).toBe('has an unknown field sla');
		expect(serviceTargetsProblem({ ...targets, firstResponseMinutes: 0 })).toMatch(/^firstResponseMinutes must be/);
		expect(serviceTargetsProblem({ ...targets, resolutionMinutes: 1.5 })).toMatch(/^resolutionMinutes must be/);
		expect(serviceTargetsProblem({ ...targets, firstResponseMinutes: 525_601 })).toMatch(/525600/);
		expect(serviceTargetsProblem({ ...targets, businessHoursOnly: 'yes' })).toMatch(/businessHoursOnly/);
		expect(serviceTargetsProblem({ ...targets, byLabel: { billing: {} } })).toMatch(/no label id: billing/);
		expect(serviceTargetsProblem({ ...targets, byLabel: { lbl_a: { firstResponseMinutes: -1 } } })).toMatch(/lbl_a.firstResponseMinutes/);
		expect(serviceTargetsProblem({ ...targets, byLabel: { lbl_a: { color: 'red' } } })).toMatch(/unknown field color/);
		const many = Object.fromEntries(Array.from({ length: 201 }, (_, index) => [`lbl_${index}`, {}]));
		expect(serviceTargetsProblem({ ...targets, byLabel: many })).toMatch(/at most 200/);
	});

	it('takes the shortest target of the conversation’s labels, the team’s when no label has one', () => {
		expect(targetMinutes(targets, 'firstResponse', [])).toBe(60);
		expect(targetMinutes(targets, 'firstResponse', ['lbl_vip', 'lbl_slow'])).toBe(15);
		expect(targetMinutes(targets, 'firstResponse', ['lbl_slow', 'lbl_other'])).toBe(240);
		expect(targetMinutes(targets, 'resolution', ['lbl_slow'])).toBe(24 * 60);
		expect(targetMinutes(targets, 'resolution', ['lbl_vip'])).toBe(24 * 60);
	});

	it('gives an open conversation its first-response deadline until someone answers, then its resolution deadline', () => {
		const policy = targetPolicy(targets, null);
		expect(serviceDue(policy, open({}))).toEqual({ kind: 'firstResponse', dueAt: '2026-11-23T11:00:00.000Z' });
		expect(serviceDue(policy, open({ labels: ['lbl_vip'] }))).toEqual({ kind: 'firstResponse', dueAt: '2026-11-23T10:15:00.000Z' });
		expect(serviceDue(policy, open({ firstReplyAt: '2026-11-23T10:05:00.000Z' }))).toEqual({
			kind: 'resolution',
			dueAt: '2026-11-24T10:00:00.000Z'
		});
		expect(serviceDue(policy, open({ firstCustomerAt: null }))).toEqual({ kind: 'resolution', dueAt: '2026-11-24T10:00:00.000Z' });
		expect(serviceDue(policy, open({ teamState: 'resolved' }))).toBeNull();
		expect(serviceDue(policy, open({ teamState: 'snoozed' }))).toBeNull();
		expect(serviceDue(null, open({}))).toBeNull();
		const onlyFirst = targetPolicy({ ...targets, resolutionMinutes: null, byLabel: {} }, null);
		expect(serviceDue(onlyFirst, open({ firstReplyAt: '2026-11-23T10:05:00.000Z' }))).toBeNull();
	});

	it('counts business hours only when asked to and the team has them', () => {
		const friday = open({ createdAt: '2026-11-27T16:30:00.000Z', firstCustomerAt: '2026-11-27T16:30:00.000Z' });
		expect(serviceDue(targetPolicy({ ...targets, businessHoursOnly: true }, weekdays), friday)?.dueAt).toBe('2026-11-30T09:30:00.000Z');
		expect(serviceDue(targetPolicy({ ...targets, businessHoursOnly: true }, null), friday)?.dueAt).toBe('2026-11-27T17:30:00.000Z');
		expect(serviceDue(targetPolicy(targets, weekdays), friday)?.dueAt).toBe('2026-11-27T17:30:00.000Z');
	});

	it('says whether a measured time met its target, in business hours when they count', () => {
		const calendar = targetPolicy({ ...targets, businessHoursOnly: true }, weekdays)!;
		const plain = targetPolicy(targets, weekdays)!;
		const start = Date.parse('2026-11-27T16:30:00Z');
		const monday = Date.parse('2026-11-30T09:29:00Z');
		expect(metTarget(calendar, 'firstResponse', [], start, monday)).toBe(true);
		expect(metTarget(plain, 'firstResponse', [], start, monday)).toBe(false);
		expect(metTarget(plain, 'firstResponse', [], start, start + 3_600_000)).toBe(true);
		expect(metTarget(plain, 'firstResponse', [], start, start + 3_600_001)).toBe(false);
		expect(metTarget(plain, 'resolution', ['lbl_slow'], start, start)).toBe(true);
		expect(metTarget(targetPolicy({ ...targets, resolutionMinutes: null, byLabel: {} }, null)!, 'resolution', [], start, start)).toBeNull();
	});

	it('calls a deadline overdue once passed and breaching within the hour before', () => {
		const due = { kind: 'firstResponse' as const, dueAt: '2026-11-23T11:00:00.000Z' };
		expect(dueState(due, Date.parse('2026-11-23T09:59:59Z'))).toBe('onTrack');
		expect(dueState(due, Date.parse('2026-11-23T10:00:00Z'))).toBe('breaching');
		expect(dueState(due, Date.parse('2026-11-23T11:00:00Z'))).toBe('breaching');
		expect(dueState(due, Date.parse('2026-11-23T11:00:01Z'))).toBe('overdue');
	});
});
