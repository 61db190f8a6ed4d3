import { describe, expect, it } from 'vitest';
import { expandReply, matchReplies, type CannedReply } from './canned-replies';

const reply = (shortcut: string, scope: CannedReply['scope'], body = shortcut): CannedReply => ({
	replyId: `rpl_${scope}_${shortcut}`,
	scope,
	shortcut,
	body,
	updatedAt: '2026-11-25T10:00:00Z'
});

describe('canned replies in the composer (docs/inbox-api.md §4 "Canned replies")', () => {
	const replies = [reply('thanks', 'team'), reply('refund', 'team'), reply('thanks', 'personal'), reply('track', 'personal')];

	it('offers the replies whose shortcut starts with what follows the slash, the agent’s own first', () => {
		expect(matchReplies('/t', replies).map((item) => item.replyId)).toEqual([
			'rpl_personal_thanks',
			'rpl_team_thanks',
			'rpl_personal_track'
		]);
		expect(matchReplies('/', replies)).toHaveLength(4);
		expect(matchReplies('/x', replies)).toEqual([]);
		for (const text of ['thanks', '/thanks now', ' /t', '/T']) expect(matchReplies(text, replies), text).toEqual([]);
	});

	it('fills in the customer’s and the agent’s names', () => {
		expect(
			expandReply('Hi {{customer.name}}, {{agent.name}} here. Bye {{customer.name}}!', { customerName: 'Zoë', agentName: 'Ada' })
		).toBe('Hi Zoë, Ada here. Bye Zoë!');
		expect(expandReply('Hi {{customer.name}}', { customerName: null, agentName: 'Ada' })).toBe('Hi there');
	});
});
