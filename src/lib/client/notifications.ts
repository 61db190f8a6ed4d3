/**
 * Notifications (docs/inbox-api.md §11 "Notifications"): the unread count in the tab's title
 * and icon, and the agent's opt-in desktop notifications and sound for new conversations and customer
 * messages in Mine and Unassigned, and for notes that mention the agent. A notification never carries
 * plaintext: the text stays in the tab; a mention's says who wrote the note, never what.
 * Settings are per agent and per browser (the permission to notify is the browser's).
 */
import type { MentionEvent } from '../inbox-api/records';
import type { ConversationView, StoredMessage } from './types';

export interface NotificationSettings {
	/** Desktop notifications (asks the browser's permission when turned on). */
	desktop: boolean;
	/** A short tone with each notification. */
	sound: boolean;
}

export const NO_NOTIFICATIONS: NotificationSettings = { desktop: false, sound: false };

type KeyValueStorage = Pick<Storage, 'getItem' | 'setItem'>;

const settingsKey = (accountId: string) => `inbox-notifications:${accountId}`;

export function loadNotificationSettings(storage: KeyValueStorage, accountId: string): NotificationSettings {
	try {
		const stored = JSON.parse(storage.getItem(settingsKey(accountId)) ?? 'null') as Partial<NotificationSettings> | null;
		return { desktop: stored?.desktop === true, sound: stored?.sound === true };
	} catch {
		return { ...NO_NOTIFICATIONS };
	}
}

export function saveNotificationSettings(storage: KeyValueStorage, accountId: string, settings: NotificationSettings): void {
	storage.setItem(settingsKey(accountId), JSON.stringify({ desktop: settings.desktop, sound: settings.sound }));
}

const COUNT_PREFIX = /^\(\d+\+?\) /;

/** `(3) Inbox`: the page's own title with the count of unread conversations in front (none at 0, 99+ above). */
export function titleWithUnread(title: string, unread: number): string {
	const plain = title.replace(COUNT_PREFIX, '');
	return unread > 0 ? `(${unread > 99 ? '99+' : unread}) ${plain}` : plain;
}

const ICON =
	'<rect width="32" height="32" rx="7" fill="#1f4e79"/><path d="M8 11h16v11H8z" fill="none" stroke="#fff" stroke-width="2"/><path d="M8 11l8 6 8-6" fill="none" stroke="#fff" stroke-width="2"/>';

/** The tab's icon as an SVG data URL: the inbox icon, with a red dot and the count when something is unread. */
export function faviconWithUnread(unread: number): string {
	const label = unread > 9 ? '9+' : String(unread);
	const badge =
		unread > 0
			? `<circle cx="23" cy="9" r="9" fill="#d93025"/><text x="23" y="13" font-family="sans-serif" font-size="${label.length > 1 ? 10 : 12}" font-weight="700" text-anchor="middle" fill="#fff">${label}</text>`
			: '';
	return `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${ICON}${badge}</svg>`)}`;
}

/** What deserves a notification: a conversation that started, a customer's message, or a note that mentions this agent. */
export type Alert =
	{ kind: 'conversation' | 'message'; conversationId: string } | { kind: 'mention'; conversationId: string; authorName: string };

/** Mine and Unassigned: a conversation assigned to another agent is theirs to hear about. */
export function concernsAgent(conversation: Pick<ConversationView, 'assignee'> | undefined, accountId: string): boolean {
	return !conversation?.assignee || conversation.assignee.accountId === accountId;
}

/** A customer's new message in Mine or Unassigned; the company's own sends and other events are not news. */
export function messageAlert(
	conversation: Pick<ConversationView, 'conversationId' | 'assignee'> | undefined,
	message: Pick<StoredMessage, 'senderType'>,
	accountId: string
): Alert | null {
	if (!conversation || message.senderType !== 'user' || !concernsAgent(conversation, accountId)) return null;
	return { kind: 'message', conversationId: conversation.conversationId };
}

/** A conversation the customer just started (it was pending or unknown here, and is active now). */
export function conversationAlert(
	before: Pick<ConversationView, 'status'> | undefined,
	after: Pick<ConversationView, 'conversationId' | 'status' | 'assignee'>,
	accountId: string
): Alert | null {
	if (after.status !== 'active' || (before && before.status !== 'pending') || !concernsAgent(after, accountId)) return null;
	return { kind: 'conversation', conversationId: after.conversationId };
}

/** A note mentioned this agent (`mention.created` comes to the mentioned account alone): who wrote it, never what. */
export function mentionAlert(event: Pick<MentionEvent, 'conversationId' | 'authorName'>): Alert {
	return { kind: 'mention', conversationId: event.conversationId, authorName: event.authorName };
}

/** The notification's words: content-free, the same for every customer; a mention names its writer only. */
export function alertText(alert: Alert): { title: string; body: string } {
	if (alert.kind === 'mention') return { title: `${alert.authorName} mentioned you`, body: mentionSentence(alert.authorName) };
	return alert.kind === 'conversation'
		? { title: 'New conversation', body: 'A customer started a conversation. Open the inbox to read it.' }
		: { title: 'New message from a customer', body: 'Open the inbox to read it.' };
}

/** `Ana mentioned you in a conversation`: the in-app notice and the desktop notification say this, nothing of the note. */
export function mentionSentence(authorName: string): string {
	return `${authorName} mentioned you in a conversation`;
}
