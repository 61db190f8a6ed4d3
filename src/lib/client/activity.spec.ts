import { describe, expect, it } from 'vitest';
import { activitySentence } from './activity';

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
		expect(activitySentence({ kind: 'unassigned', actorName: 'Ben', at, details: { assigneeName: 'Ada' } })).toBe('Ben unassigned Ada.');
		expect(activitySentence({ kind: 'assigned', actorName: null, at, details: {} })).toBe('Someone assigned this to someone.');
	});
});
