import { describe, expect, it } from 'vitest';
import { authorLabel, MessageAuthors, previewWithAuthor, type MessageAuthor } from './message-authors';

const ref = (clientMessageId: string, conversationId = 'conv_1') => ({ conversationId, clientMessageId });

describe('message authors in the page (docs/inbox-api.md §4 "Message authors")', () => {
	it('names an agent, this agent, and where other messages came from', () => {
		const agent: MessageAuthor = { ...ref('a'), origin: 'agent', accountId: 'acc_ada', displayName: 'Ada' };
		expect(authorLabel(agent, 'acc_ben')).toBe('Ada');
		expect(authorLabel(agent, 'acc_ada')).toBe('You');
		expect(authorLabel({ ...agent, accountId: null }, 'acc_ada')).toBe('Ada');
		expect(authorLabel({ ...ref('b'), origin: 'inbox' }, 'acc_ada')).toBe('Sent from the inbox');
		expect(authorLabel({ ...ref('c'), origin: 'outside' }, 'acc_ada')).toBe('Sent outside the inbox');
		expect(authorLabel(undefined, 'acc_ada')).toBeNull();
		expect(previewWithAuthor('Hi', 'company', 'Ada')).toBe('Ada: Hi');
		expect(previewWithAuthor('Hi', 'user', 'Ada')).toBe('Hi');
		expect(previewWithAuthor('Hi', 'company', null)).toBe('Hi');
	});

	it('asks the inbox only about messages it does not know, at most 200 at once, and answers in the order asked', async () => {
		const asked: number[] = [];
		const authors = new MessageAuthors(async (messages) => {
			asked.push(messages.length);
			return { data: messages.map((message) => ({ ...message, origin: 'outside' as const })) };
		});
		const many = Array.from({ length: 450 }, (_, i) => ref(`m${i}`));
		expect(await authors.lookUp([...many, many[0]])).toHaveLength(451);
		expect(asked).toEqual([200, 200, 50]);
		const again = await authors.lookUp([ref('m3'), ref('new'), ref('m3', 'conv_2')]);
		expect(again.map((author) => `${author.conversationId}/${author.clientMessageId}`)).toEqual(['conv_1/m3', 'conv_1/new', 'conv_2/m3']);
		expect(asked).toEqual([200, 200, 50, 2]);
		authors.clear();
		await authors.lookUp([ref('m3')]);
		expect(asked.at(-1)).toBe(1);
	});
});
