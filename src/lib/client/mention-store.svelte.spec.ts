import { describe, expect, it } from 'vitest';
import { MentionStore, type MentionApi } from './mention-store.svelte';
import type { MentionSummary } from '../inbox-api/records';

/** The server's side, in memory: its list, and each read mark the store sends. */
function fakeServer(list: MentionSummary[]): MentionApi & { reads: string[] } {
	const reads: string[] = [];
	return {
		reads,
		listMentions: async () => ({ data: list }),
		readMentions: async (conversationId) => {
			reads.push(conversationId);
		}
	};
}

const mention = (conversationId: string, authorName = 'Ana') => ({
	conversationId,
	noteId: 'note_1',
	accountId: 'acc_me',
	authorName,
	createdAt: '2026-11-24T10:00:00Z'
});

describe('the mentions of this agent (docs/inbox-api.md §4 "Mentions")', () => {
	it('marks a conversation read on the server when opened with unread mentions, and only then once the list is known', async () => {
		const server = fakeServer([
			{ conversationId: 'conv_1', unreadCount: 2, lastMentionedAt: '2026-11-24T10:00:00Z', lastMentionedBy: 'Ana' },
			{ conversationId: 'conv_2', unreadCount: 0, lastMentionedAt: '2026-11-24T09:00:00Z', lastMentionedBy: 'Bo' }
		]);
		const store = new MentionStore(server);
		// before the list arrives, opening asks the server anyway
		await store.open('conv_9');
		await store.load();
		expect([store.unread, [...store.conversationIds]]).toEqual([1, ['conv_1', 'conv_2']]);
		await store.open('conv_2');
		await store.open('conv_1');
		await store.open('conv_1');
		expect(server.reads).toEqual(['conv_9', 'conv_1']);
		expect([store.unread, store.unreadIn('conv_1')]).toEqual([0, 0]);
	});

	it('shows the newest mention as a notice until dismissed, or until its conversation is opened here or in another tab', async () => {
		const store = new MentionStore(fakeServer([]));
		await store.load();
		store.mentioned(mention('conv_1'));
		expect([store.notice?.authorName, store.unreadIn('conv_1'), store.unread]).toEqual(['Ana', 1, 1]);
		store.dismissNotice();
		expect([store.notice, store.unread]).toEqual([null, 1]);
		store.mentioned(mention('conv_2', 'Bo'));
		store.readElsewhere('conv_2');
		expect([store.notice, store.unreadIn('conv_2')]).toEqual([null, 0]);
		store.mentioned(mention('conv_1', 'Cy'));
		await store.open('conv_1');
		expect([store.notice, store.unread]).toEqual([null, 0]);
		store.clear();
		expect(store.items).toEqual([]);
	});
});
