/**
 * The inbox server's own records as the browser receives them (docs/inbox-api.md §2–§7): accounts,
 * the inbox's view of conversations, stored messages and invitations. Accounts and conversations are
 * declared with the server in src/lib/inbox-api/records.ts; `/v1` shapes live in src/lib/wire/v1.ts.
 */
import type { Envelope } from '../crypto/message';
import type { Wrap } from '../crypto/wrap';
import type {
	AccountView,
	AgentWrapForMe,
	ConversationView,
	RewrapState,
	Role,
	SessionInfo,
	TeamMember,
	Trust
} from '../inbox-api/records';
import type { ConversationStatus, HistoryItem } from '../wire/v1-records';

export type { AgentWrapForMe, ConversationStatus, Envelope, RewrapState, Role, SessionInfo, TeamMember, Trust, Wrap };

export type Account = AccountView;

export type Conversation = ConversationView;

/** A message as the inbox stored it: the same record as a `/v1` history item (docs/inbox-api.md §4). */
export type StoredMessage = HistoryItem;

export interface Invitation {
	inviteId: string;
	conversationId: string;
	inviteUrl: string;
	shortCode: string;
	expiresAt: string;
	/** `<inviteUrl>#s=…&fp=…`, shown once (contract 6.3). */
	link: string;
}

export interface Page<T> {
	data: T[];
	nextCursor: string | null;
}

/** A page of the conversation list, with the newest live event committed before it was read (docs/inbox-api.md §3). */
export interface ConversationPage extends Page<Conversation> {
	liveEventId: number;
}
