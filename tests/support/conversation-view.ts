/** A conversation as the list holds it (docs/inbox-api.md §4), open, read and unassigned unless `extra` says otherwise. */
import type { ConversationView } from '../../src/lib/client/types';

export function conversationView(id: string, lastActivityAt: string, extra: Partial<ConversationView> = {}): ConversationView {
	return {
		conversationId: id,
		status: 'active',
		trust: 'verified',
		rewrap: { state: 'none', error: null },
		keyVersion: 1,
		userDeleted: false,
		createdAt: '2026-01-01T00:00:00Z',
		startedAt: '2026-01-01T00:00:00Z',
		lastActivityAt,
		closedAt: null,
		unreadCount: 0,
		readable: true,
		agentWraps: [],
		keyEvents: [],
		mayApproveRewrap: true,
		teamState: 'open',
		snoozedUntil: null,
		assignee: null,
		team: null,
		activity: [],
		profile: null,
		labels: [],
		linkedConversations: [],
		firstCustomerAt: null,
		firstReplyAt: null,
		...extra
	};
}
