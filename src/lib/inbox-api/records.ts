/**
 * The inbox server's records as the browser receives them (docs/inbox-api.md §2–§4), declared once for
 * the server that builds them and the pages that read them. Types only: nothing here runs.
 */
import type { Wrap } from '../crypto/wrap';
import type { ConversationStatus } from '../wire/v1-records';

export type Role = 'agent' | 'admin';

export type Trust = 'verified' | 'unverified' | 'binding_invalid';

export type RewrapState = 'none' | 'needs_confirmation' | 'blocked' | 'queued' | 'done' | 'failed';

/** An account as `GET /api/session` and the admin's account list show it (§2, §8). */
export interface AccountView {
	accountId: string;
	username: string;
	displayName: string;
	role: Role;
	agentKeyId: string | null;
	agentPublicKey: string | null;
}

/** A conversation key sealed for one agent of a roster (contract 6.7). */
export interface AgentWrapForMe {
	agentKeyId: string;
	rosterVersion: number;
	wrap: Wrap;
}

/** An account's view of a conversation (§4). */
export interface ConversationView {
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
