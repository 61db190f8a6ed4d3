/**
 * The inbox server's own API for the agent pages (docs/inbox-api.md §2–§5): session, the agent's
 * key registration, the inbox's view of conversations, invitations, re-invitations and the
 * explicit rewrap confirmation.
 */
import type { ConversationStatus } from '../wire/v1-records';
import type { PrivateEnvelope } from '../crypto/private-record';
import type { CannedReply, ConversationNote, Label, LabelColor, PendingInvite } from '../inbox-api/records';
import { api } from './http';
import type { Account, Conversation, ConversationPage, Invitation, SessionInfo, StoredMessage, TeamMember, Trust } from './types';
import { queryString } from '../query-string';

export const getSession = () => api<SessionInfo>('GET', '/api/session');

export const login = (username: string, password: string) => api<SessionInfo>('POST', '/api/session', { body: { username, password } });

export const logout = () => api<void>('DELETE', '/api/session');

export const registerAgentKey = (input: { agentKeyId: string; publicKey: string; replace?: boolean }) =>
	api<{ account: Account }>('PUT', '/api/agent-key', {
		body: input.replace ? input : { agentKeyId: input.agentKeyId, publicKey: input.publicKey }
	});

export const listConversations = (input: { status?: ConversationStatus; trust?: Trust; limit?: number; cursor?: string | null } = {}) =>
	api<ConversationPage>('GET', `/api/conversations${queryString(input)}`);

/** Assigns the conversation to an account, or to nobody (docs/inbox-api.md §4 "Assignment"). */
export const setAssignee = (conversationId: string, accountId: string | null) =>
	api<Conversation>('PUT', `/api/conversations/${encodeURIComponent(conversationId)}/assignee`, { body: { accountId } });

/** The conversation's private notes, as ciphertext (docs/inbox-api.md §4 "Notes"). */
export const listNotes = (conversationId: string) =>
	api<{ data: ConversationNote[] }>('GET', `/api/conversations/${encodeURIComponent(conversationId)}/notes`);

export const addNote = (conversationId: string, envelope: PrivateEnvelope) =>
	api<ConversationNote>('POST', `/api/conversations/${encodeURIComponent(conversationId)}/notes`, { body: { envelope } });

/** Saves the customer's profile over `version` (0: none yet); `409 STATE_CONFLICT` when someone saved meanwhile. */
export const saveProfile = (conversationId: string, envelope: PrivateEnvelope, version: number) =>
	api<Conversation>('PUT', `/api/conversations/${encodeURIComponent(conversationId)}/profile`, { body: { envelope, version } });

/** Resolves, reopens or snoozes a conversation (docs/inbox-api.md §4 "Lifecycle"). */
export const setTeamState = (conversationId: string, change: { state: 'open' | 'resolved' } | { state: 'snoozed'; snoozedUntil: string }) =>
	api<Conversation>('PUT', `/api/conversations/${encodeURIComponent(conversationId)}/state`, { body: change });

/** Tells the other agents this one is viewing, typing, or has left (docs/inbox-api.md §4 "Presence"). */
export const postPresence = (conversationId: string, state: 'viewing' | 'typing' | 'left') =>
	api<void>('POST', `/api/conversations/${encodeURIComponent(conversationId)}/presence`, { body: { state } });

export const listLabels = () => api<{ data: Label[] }>('GET', '/api/labels');

/** Sets exactly these labels on the conversation (docs/inbox-api.md §4 "Labels"). */
export const setConversationLabels = (conversationId: string, labelIds: string[]) =>
	api<Conversation>('PUT', `/api/conversations/${encodeURIComponent(conversationId)}/labels`, { body: { labelIds } });

export const createLabel = (label: { name: string; color: LabelColor }) => api<Label>('POST', '/api/admin/labels', { body: label });

export const deleteLabel = (labelId: string) => api<void>('DELETE', `/api/admin/labels/${encodeURIComponent(labelId)}`);

export const listCannedReplies = () => api<{ data: CannedReply[] }>('GET', '/api/canned-replies');

export const createCannedReply = (reply: { scope: 'team' | 'personal'; shortcut: string; body: string }) =>
	api<CannedReply>('POST', '/api/canned-replies', { body: reply });

export const deleteCannedReply = (replyId: string) => api<void>('DELETE', `/api/canned-replies/${encodeURIComponent(replyId)}`);

/** Invitations the customers have not answered yet (docs/inbox-api.md §5). */
export const listPendingInvites = () => api<{ data: PendingInvite[] }>('GET', '/api/invites');

export const showInvite = (inviteId: string) => api<Invitation>('GET', `/api/invites/${encodeURIComponent(inviteId)}`);

export const revokeInvite = (inviteId: string) => api<void>('DELETE', `/api/invites/${encodeURIComponent(inviteId)}`);

/** Keeps a profile sealed to the company key until the invited customer joins (docs/private-records.md). */
export const keepPendingProfile = (conversationId: string, sealed: string) =>
	api<void>('PUT', `/api/conversations/${encodeURIComponent(conversationId)}/pending-profile`, { body: { sealed } });

/** Links the conversation to another of the same customer, or (null) takes it out of its group. */
export const linkCustomer = (conversationId: string, linkedTo: string | null) =>
	api<Conversation>('PUT', `/api/conversations/${encodeURIComponent(conversationId)}/customer-link`, { body: { linkedTo } });

export const getTeam = () => api<{ data: TeamMember[] }>('GET', '/api/team');

export const getConversation = (conversationId: string) =>
	api<Conversation>('GET', `/api/conversations/${encodeURIComponent(conversationId)}`);

export const listStoredMessages = (conversationId: string, input: { afterSeq?: number; limit?: number } = {}) =>
	api<{ data: StoredMessage[]; hasMore: boolean }>(
		'GET',
		`/api/conversations/${encodeURIComponent(conversationId)}/messages${queryString(input)}`
	);

export const createInvitation = (idempotencyKey: string, input: { expiresIn?: number } = {}) =>
	api<Invitation>('POST', '/api/invites', { body: input, idempotencyKey });

export const createReinvitation = (conversationId: string, idempotencyKey: string, input: { expiresIn?: number } = {}) =>
	api<Invitation>('POST', `/api/conversations/${encodeURIComponent(conversationId)}/reinvite`, { body: input, idempotencyKey });

/** The company's current public key and its fingerprint in the display form (contract 2.2). */
export const getCompanyKey = () => api<{ keyVersion: number; publicKey: string; fingerprint: string }>('GET', '/api/company');

/** Contract 6.4 step 5: the agent confirmed the customer's new key by another channel. */
export const confirmRewrap = (conversationId: string) =>
	api<Conversation>('POST', `/api/conversations/${encodeURIComponent(conversationId)}/rewrap`, { body: {} });
