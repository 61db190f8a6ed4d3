import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '$test-support/memory-storage';
import {
	alertText,
	conversationAlert,
	faviconWithUnread,
	loadNotificationSettings,
	mentionAlert,
	messageAlert,
	saveNotificationSettings,
	titleWithUnread
} from './notifications';

const ada = { accountId: 'acc_ada', displayName: 'Ada' };
const ben = { accountId: 'acc_ben', displayName: 'Ben' };

describe('notifications', () => {
	it('puts the unread count in front of whatever title the page has, once', () => {
		expect(titleWithUnread('Inbox', 0)).toBe('Inbox');
		expect(titleWithUnread('Inbox', 3)).toBe('(3) Inbox');
		expect(titleWithUnread('(3) Inbox', 4)).toBe('(4) Inbox');
		expect(titleWithUnread('(99+) Customer Q4jQ · Inbox', 0)).toBe('Customer Q4jQ · Inbox');
		expect(titleWithUnread('Inbox', 99)).toBe('(99) Inbox');
		expect(titleWithUnread('Inbox', 100)).toBe('(99+) Inbox');
		expect(titleWithUnread('(draft) notes', 1)).toBe('(1) (draft) notes');
	});

	it('draws the count on the icon', () => {
		const svg = (unread: number) => decodeURIComponent(faviconWithUnread(unread).replace('data:image/svg+xml,', ''));
		expect(faviconWithUnread(0)).toMatch(/^data:image\/svg\+xml,/);
		expect(svg(0)).not.toContain('<circle');
		expect(svg(3)).toContain('<circle');
		expect(svg(3)).toContain('>3</text>');
		expect(svg(12)).toContain('>9+</text>');
		expect(svg(12)).toContain('font-size="10"');
		expect(svg(9)).toContain('font-size="12"');
	});

	it('keeps settings per agent, and reads anything unexpected as off', () => {
		const storage = new MemoryStorage();
		expect(loadNotificationSettings(storage, 'acc_ada')).toEqual({ desktop: false, sound: false });
		saveNotificationSettings(storage, 'acc_ada', { desktop: true, sound: true });
		expect(loadNotificationSettings(storage, 'acc_ada')).toEqual({ desktop: true, sound: true });
		expect(loadNotificationSettings(storage, 'acc_ben')).toEqual({ desktop: false, sound: false });
		storage.setItem('inbox-notifications:acc_ben', '{not json');
		expect(loadNotificationSettings(storage, 'acc_ben')).toEqual({ desktop: false, sound: false });
		storage.setItem('inbox-notifications:acc_ben', '{"desktop":"yes","sound":1}');
		expect(loadNotificationSettings(storage, 'acc_ben')).toEqual({ desktop: false, sound: false });
	});

	it("alerts for a customer's message in Mine and Unassigned only", () => {
		const unassigned = { conversationId: 'conv_a', assignee: null };
		expect(messageAlert(unassigned, { senderType: 'user' }, 'acc_ada')).toEqual({ kind: 'message', conversationId: 'conv_a' });
		expect(messageAlert({ ...unassigned, assignee: ada }, { senderType: 'user' }, 'acc_ada')).toEqual({
			kind: 'message',
			conversationId: 'conv_a'
		});
		expect(messageAlert({ ...unassigned, assignee: ben }, { senderType: 'user' }, 'acc_ada')).toBeNull();
		expect(messageAlert(unassigned, { senderType: 'company' }, 'acc_ada')).toBeNull();
		expect(messageAlert(undefined, { senderType: 'user' }, 'acc_ada')).toBeNull();
	});

	it('alerts when a customer starts a conversation, not for later changes', () => {
		const started = { conversationId: 'conv_a', status: 'active' as const, assignee: null };
		expect(conversationAlert({ status: 'pending' }, started, 'acc_ada')).toEqual({ kind: 'conversation', conversationId: 'conv_a' });
		expect(conversationAlert(undefined, started, 'acc_ada')).toEqual({ kind: 'conversation', conversationId: 'conv_a' });
		expect(conversationAlert({ status: 'active' }, started, 'acc_ada')).toBeNull();
		expect(conversationAlert({ status: 'pending' }, { ...started, status: 'pending' }, 'acc_ada')).toBeNull();
		expect(conversationAlert({ status: 'pending' }, { ...started, assignee: ben }, 'acc_ada')).toBeNull();
	});

	it('says nothing of the content', () => {
		expect(alertText({ kind: 'message', conversationId: 'conv_a' })).toEqual({
			title: 'New message from a customer',
			body: 'Open the inbox to read it.'
		});
		expect(alertText({ kind: 'conversation', conversationId: 'conv_a' }).title).toBe('New conversation');
	});

	it('says who mentioned the agent, and nothing of the note', () => {
		const alert = mentionAlert({ conversationId: 'conv_a', authorName: 'Ana' });
		expect(alert).toEqual({ kind: 'mention', conversationId: 'conv_a', authorName: 'Ana' });
		expect(alertText(alert)).toEqual({ title: 'Ana mentioned you', body: 'Ana mentioned you in a conversation' });
	});
});
