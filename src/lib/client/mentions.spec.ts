import { describe, expect, it } from 'vitest';
import { insertMention, matchCandidates, mentionedIds, mentionQuery, withMention, withMentionsRead } from './mentions';

const ana = { accountId: 'acc_ana', displayName: 'Ana' };
const anaLopez = { accountId: 'acc_analopez', displayName: 'Ana López' };
const bo = { accountId: 'acc_bo', displayName: 'Bo Smith' };
const readers = [ana, anaLopez, bo];

describe('typing a mention (docs/inbox-api.md §4 "Mentions")', () => {
	it('finds the @name typed just before the caret, after a space or at the start', () => {
		expect(mentionQuery('@', 1)).toEqual({ start: 0, query: '' });
		expect(mentionQuery('ask @an', 7)).toEqual({ start: 4, query: 'an' });
		expect(mentionQuery('ask @Bo Sm', 10)).toEqual({ start: 4, query: 'Bo Sm' });
		expect(mentionQuery('ask @an and more', 7)).toEqual({ start: 4, query: 'an' });
		// an address, two spaces, a new line or nothing typed with @ is not a mention
		expect(mentionQuery('mail ana@example.com', 20)).toBeNull();
		expect(mentionQuery('ask @an  x', 10)).toBeNull();
		expect(mentionQuery('ask @an\nx', 9)).toBeNull();
		expect(mentionQuery('no mention', 10)).toBeNull();
		expect(mentionQuery('ask @an', 3)).toBeNull();
	});

	it('offers the readers whose name or a word of it starts with what was typed', () => {
		expect(matchCandidates('', readers)).toEqual(readers);
		expect(matchCandidates('an', readers)).toEqual([ana, anaLopez]);
		expect(matchCandidates('LÓ', readers)).toEqual([anaLopez]);
		expect(matchCandidates('smith', readers)).toEqual([bo]);
		expect(matchCandidates('x', readers)).toEqual([]);
		const many = Array.from({ length: 12 }, (_, index) => ({ accountId: `acc_${index}`, displayName: `Agent ${index}` }));
		expect(matchCandidates('ag', many)).toHaveLength(8);
	});

	it('offers the readers at work first, then those away, then the others, each in the order given', () => {
		const team = Array.from({ length: 12 }, (_, index) => ({
			accountId: `acc_${index}`,
			displayName: `Agent ${index}`,
			availability: 'offline' as const
		}));
		const away = { accountId: 'acc_away', displayName: 'Zed', availability: 'away' as const };
		const online = [
			{ accountId: 'acc_yo', displayName: 'Yo', availability: 'online' as const },
			{ accountId: 'acc_zo', displayName: 'Zo', availability: 'online' as const }
		];
		const offered = matchCandidates('', [...team, away, ...online]);
		expect(offered.map((candidate) => candidate.accountId)).toEqual([
			'acc_yo',
			'acc_zo',
			'acc_away',
			...team.slice(0, 5).map((agent) => agent.accountId)
		]);
		expect(matchCandidates('z', [...team, away, ...online])).toEqual([online[1], away]);
	});

	it('puts the picked name in place of what was typed, the caret after it', () => {
		expect(insertMention('ask @an now', 4, 7, 'Ana López')).toEqual({ text: 'ask @Ana López  now', caret: 15 });
		expect(insertMention('@', 0, 1, 'Bo Smith')).toEqual({ text: '@Bo Smith ', caret: 10 });
	});

	it('names the readers the text mentions, the longest name written there, each once', () => {
		expect(mentionedIds('@Ana López and @Bo Smith, then @ana again', readers)).toEqual(['acc_analopez', 'acc_bo', 'acc_ana']);
		expect(mentionedIds('@Ana, please', readers)).toEqual(['acc_ana']);
		// a name cut short, an address or a name typed without @ mentions nobody
		expect(mentionedIds('@Anabel, ana@example.com, Bo Smith, @Bo', readers)).toEqual([]);
	});
});

describe('the conversations where this agent was mentioned', () => {
	const event = (conversationId: string, authorName: string, createdAt: string) => ({
		conversationId,
		noteId: 'note_1',
		accountId: 'acc_me',
		authorName,
		createdAt
	});

	it('counts a new mention as unread, its conversation first, until the conversation is opened', () => {
		let list = withMention([], event('conv_1', 'Ana', '2026-11-24T10:00:00Z'));
		list = withMention(list, event('conv_2', 'Bo', '2026-11-24T10:01:00Z'));
		list = withMention(list, event('conv_1', 'Bo', '2026-11-24T10:02:00Z'));
		expect(list).toEqual([
			{ conversationId: 'conv_1', unreadCount: 2, lastMentionedAt: '2026-11-24T10:02:00Z', lastMentionedBy: 'Bo' },
			{ conversationId: 'conv_2', unreadCount: 1, lastMentionedAt: '2026-11-24T10:01:00Z', lastMentionedBy: 'Bo' }
		]);
		const read = withMentionsRead(list, 'conv_1');
		expect(read.map((item) => item.unreadCount)).toEqual([0, 1]);
		expect(withMentionsRead(read, 'conv_1')[0]).toBe(read[0]);
	});
});
