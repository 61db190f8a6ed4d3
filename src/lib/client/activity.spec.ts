import { describe, expect, it } from 'vitest';
import { activitySentence, keyEventSentence } from './activity';

const at = '2026-11-25T10:00:00Z';

describe('activity sentences (docs/inbox-api.md §4 `activity`)', () => {
	it('says who assigned whom, who took a conversation, who unassigned it, and an assignment by the first reply', () => {
		expect(activitySentence({ kind: 'assigned', actorName: 'Ben', at, details: { assigneeName: 'Ada' } })).toBe(
			'Ben assigned this to Ada.'
		);
		expect(activitySentence({ kind: 'assigned', actorName: 'Ada', at, details: { assigneeName: 'Ada' } })).toBe(
			'Ada took this conversation.'
		);
		expect(activitySentence({ kind: 'assigned', actorName: 'Ada', at, details: { assigneeName: 'Ada', automatic: true } })).toBe(
			'Assigned to Ada, who replied first.'
		);
		expect(
			activitySentence({ kind: 'assigned', actorName: null, at, details: { assigneeName: 'Cy', automatic: true, rule: 'round_robin' } })
		).toBe('Assigned to Cy by round-robin: online, and their turn.');
		expect(activitySentence({ kind: 'unassigned', actorName: 'Ben', at, details: { assigneeName: 'Ada' } })).toBe('Ben unassigned Ada.');
		expect(activitySentence({ kind: 'assigned', actorName: null, at, details: {} })).toBe('Someone assigned this to someone.');
	});

	it('says who gave it to a team or took it from one, and a round-robin turn among a team’s members (§4 "Teams")', () => {
		expect(activitySentence({ kind: 'team_assigned', actorName: 'Ben', at, details: { teamName: 'Billing' } })).toBe(
			'Ben gave this conversation to the team Billing.'
		);
		expect(activitySentence({ kind: 'team_unassigned', actorName: 'Ada', at, details: { teamName: 'Billing' } })).toBe(
			'Ada took this conversation from the team Billing.'
		);
		expect(activitySentence({ kind: 'team_unassigned', actorName: 'Ada', at, details: {} })).toBe(
			'Ada took this conversation from a team.'
		);
		expect(
			activitySentence({
				kind: 'assigned',
				actorName: null,
				at,
				details: { assigneeName: 'Cy', automatic: true, rule: 'round_robin', teamName: 'Billing' }
			})
		).toBe('Assigned to Cy by round-robin in Billing: online, and their turn.');
	});

	it('says who resolved, snoozed and reopened it, and why it opened by itself', () => {
		expect(activitySentence({ kind: 'resolved', actorName: 'Ada', at, details: {} })).toBe('Ada resolved this conversation.');
		expect(activitySentence({ kind: 'snoozed', actorName: 'Ada', at, details: { until: at } })).toMatch(
			/^Ada snoozed this conversation until .+2026/
		);
		expect(activitySentence({ kind: 'reopened', actorName: 'Ben', at, details: {} })).toBe('Ben reopened this conversation.');
		expect(activitySentence({ kind: 'reopened', actorName: null, at, details: { reason: 'customer_message' } })).toMatch(
			/customer wrote again/
		);
		expect(activitySentence({ kind: 'reopened', actorName: null, at, details: { reason: 'snooze_ended' } })).toMatch(/snooze ended/);
	});
});

describe('key event sentences (docs/inbox-api.md §4 `keyEvents`)', () => {
	it('names who approved a rewrap and the standing they had: an admin since when and made by whom, or an agent in the roster since when', () => {
		const approved = (details: object) => keyEventSentence({ kind: 'rewrap_approved', actorName: 'Alan', at, details });
		expect(approved({ approverRole: 'admin', roleSince: at, roleGrantedBy: 'Grace' })).toMatch(
			/^Alan \(an admin since .+2026.*, made one by Grace\) approved giving the new device the conversation’s history\.$/
		);
		expect(approved({ approverRole: 'agent', roleSince: at })).toMatch(/^Alan \(in the roster since .+\) approved giving/);
		expect(approved({})).toBe('Alan approved giving the new device the conversation’s history.');
	});
});
