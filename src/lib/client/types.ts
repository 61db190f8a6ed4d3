/**
 * The inbox server's own records as the browser receives them (docs/inbox-api.md §2–§7): accounts,
 * the inbox's view of conversations, stored messages and invitations. `/v1` shapes live in
 * src/lib/wire/v1.ts.
 */
import type { Envelope } from '../crypto/message';
import type { Wrap } from '../crypto/wrap';
import type { ConversationStatus, HistoryItem } from '../wire/v1-records';

export type { ConversationStatus, Envelope, Wrap };

export type Role = 'agent' | 'admin';

export interface Account {
	accountId: string;
	username: string;
	displayName: string;
	role: Role;
	agentKeyId: string | null;
	agentPublicKey: string | null;
}

export interface SessionInfo {
	account: Account;
	expiresAt: string;
}

export type Trust = 'verified' | 'unverified' | 'binding_invalid';

export type RewrapState = 'none' | 'needs_confirmation' | 'blocked' | 'queued' | 'done' | 'failed';

export interface AgentWrapForMe {
	agentKeyId: string;
	rosterVersion: number;
	wrap: Wrap;
}

export interface Conversation {
	conversationId: string;
	status: ConversationStatus;
	trust: Trust | null;
	rewrap: { state: RewrapState; error: string | null };
	keyVersion: number | null;
	userDeleted: boolean;
	createdAt: string;
	startedAt: string | null;
	lastActivityAt: string;
	closedAt: string | null;
	unreadCount: number;
	agentWraps: AgentWrapForMe[];
}

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
