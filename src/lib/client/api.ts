/**
 * The inbox server's own API for the agent pages (docs/inbox-api.md §2–§5): session, the agent's
 * key registration, the inbox's view of conversations, invitations, re-invitations and the
 * explicit rewrap confirmation. Each call goes through the route's one declaration
 * (src/lib/inbox-api/endpoints.ts), so its path, body and answer are the server's.
 */
import type { PrivateEnvelope } from '../crypto/private-record';
import { INBOX_API as API, type BodyOf, type QueryOf } from '../inbox-api/endpoints';
import type { LabelColor } from '../inbox-api/records';
import { call } from './http';
import type { ConversationView } from './types';

export const getSession = () => call(API.getSession);

export const login = (username: string, password: string) => call(API.login, { body: { username, password } });

export const logout = () => call(API.logout);

/** The session's unlock share while one of its tabs is open, else null (docs/inbox-api.md §2 "Unlock once per browser session"). */
export const getUnlockShare = () => call(API.getUnlockShare);

/** The session's unlock share, made when it has none: a tab unlocked the key. */
export const keepUnlockShare = () => call(API.keepUnlockShare);

/** Drops the session's unlock share: every tab needs the passphrase again. */
export const dropUnlockShare = () => call(API.dropUnlockShare);

export const registerAgentKey = (input: { agentKeyId: string; publicKey: string; replace?: boolean }) =>
	call(API.registerAgentKey, {
		body: input.replace
			? { agentKeyId: input.agentKeyId, publicKey: input.publicKey, replace: true }
			: { agentKeyId: input.agentKeyId, publicKey: input.publicKey }
	});

export const listConversations = (query: QueryOf<typeof API.listConversations> = {}) => call(API.listConversations, { query });

/** Every conversation of the inbox's view, page after page (the history pass reads them all; the list, as the agent scrolls). */
export async function listEveryConversation(): Promise<ConversationView[]> {
	const every: ConversationView[] = [];
	let cursor: string | null = null;
	do {
		const page = await listConversations({ limit: 200, cursor });
		every.push(...page.data);
		cursor = page.nextCursor;
	} while (cursor);
	return every;
}

/** How many conversations are in each of the list's views (docs/inbox-api.md §4 "Counts"). */
export const countConversations = () => call(API.countConversations, { query: {} });

/** Assigns the conversation to an account, or to nobody (docs/inbox-api.md §4 "Assignment"). */
export const setAssignee = (conversationId: string, accountId: string | null) =>
	call(API.setAssignee, { params: { conversationId }, body: { accountId } });

/** The conversation's private notes, as ciphertext (docs/inbox-api.md §4 "Notes"). */
export const listNotes = (conversationId: string) => call(API.listNotes, { params: { conversationId } });

export const addNote = (conversationId: string, envelope: PrivateEnvelope, mentions: string[]) =>
	call(API.addNote, { params: { conversationId }, body: { envelope, mentions } });

/** Who can read the conversation: whom a note there may mention (docs/inbox-api.md §4 "Mentions"). */
export const listReaders = (conversationId: string) => call(API.listReaders, { params: { conversationId } });

/** The conversations where a note mentioned this agent. */
export const listMentions = () => call(API.listMentions);

/** This agent opened the conversation: its mentions there are read. */
export const readMentions = (conversationId: string) => call(API.readMentions, { params: { conversationId }, body: {} });

/** Saves the customer's profile over `version` (0: none yet); `409 STATE_CONFLICT` when someone saved meanwhile. */
export const saveProfile = (conversationId: string, envelope: PrivateEnvelope, version: number) =>
	call(API.saveProfile, { params: { conversationId }, body: { envelope, version } });

/** Resolves, reopens or snoozes a conversation (docs/inbox-api.md §4 "Lifecycle"). */
export const setTeamState = (conversationId: string, change: BodyOf<typeof API.setTeamState>) =>
	call(API.setTeamState, { params: { conversationId }, body: change });

/** Tells the other agents this one is viewing, typing, or has left (docs/inbox-api.md §4 "Presence"). */
export const postPresence = (conversationId: string, state: 'viewing' | 'typing' | 'left') =>
	call(API.postPresence, { params: { conversationId }, body: { state } });

export const listLabels = () => call(API.listLabels);

/** The business hours and service targets every row is measured against (docs/service-targets.md). */
export const getServiceTargets = () => call(API.getServiceTargets);

/** Sets exactly these labels on the conversation (docs/inbox-api.md §4 "Labels"). */
export const setConversationLabels = (conversationId: string, labelIds: string[]) =>
	call(API.setConversationLabels, { params: { conversationId }, body: { labelIds } });

export const createLabel = (label: { name: string; color: LabelColor }) => call(API.createLabel, { body: label });

export const deleteLabel = (labelId: string) => call(API.deleteLabel, { params: { labelId } });

/** The company's teams of agents (docs/inbox-api.md §4 "Teams"). */
export const listTeams = () => call(API.listTeams);

/** Gives the conversation to a team, or to none. */
export const setConversationTeam = (conversationId: string, teamId: string | null) =>
	call(API.setConversationTeam, { params: { conversationId }, body: { teamId } });

export const createTeam = (team: { name: string; memberIds: string[] }) => call(API.createTeam, { body: team });

export const updateTeam = (teamId: string, change: { name?: string; memberIds?: string[] }) =>
	call(API.updateTeam, { params: { teamId }, body: change });

export const deleteTeam = (teamId: string) => call(API.deleteTeam, { params: { teamId } });

export const listCannedReplies = () => call(API.listCannedReplies);

export const createCannedReply = (reply: BodyOf<typeof API.createCannedReply>) => call(API.createCannedReply, { body: reply });

export const deleteCannedReply = (replyId: string) => call(API.deleteCannedReply, { params: { replyId } });

/** Invitations the customers have not answered yet (docs/inbox-api.md §5). */
export const listPendingInvites = () => call(API.listPendingInvites);

export const showInvite = (inviteId: string) => call(API.showInvite, { params: { inviteId } });

export const revokeInvite = (inviteId: string) => call(API.revokeInvite, { params: { inviteId } });

/** Keeps a profile sealed to the company key until the invited customer joins (docs/private-records.md). */
export const keepPendingProfile = (conversationId: string, sealed: string) =>
	call(API.keepPendingProfile, { params: { conversationId }, body: { sealed } });

/** Links the conversation to another of the same customer, or (null) takes it out of its group. */
export const linkCustomer = (conversationId: string, linkedTo: string | null) =>
	call(API.linkCustomer, { params: { conversationId }, body: { linkedTo } });

export const getTeam = () => call(API.getTeam);
export const setAvailability = (change: BodyOf<typeof API.setAvailability>) => call(API.setAvailability, { body: change });

export const getConversation = (conversationId: string) => call(API.getConversation, { params: { conversationId } });

export const listStoredMessages = (conversationId: string, query: QueryOf<typeof API.listStoredMessages> = {}) =>
	call(API.listStoredMessages, { params: { conversationId }, query });

export const createInvitation = (idempotencyKey: string, input: { expiresIn?: number } = {}) =>
	call(API.createInvitation, { body: input, idempotencyKey });

export const createReinvitation = (conversationId: string, idempotencyKey: string, input: { expiresIn?: number } = {}) =>
	call(API.reinvite, { params: { conversationId }, body: input, idempotencyKey });

/** The company's current public key and its fingerprint in the display form (contract 2.2). */
export const getCompanyKey = () => call(API.getCompany);

/** Contract 6.4 step 5: the agent confirmed the customer's new key by another channel. */
export const confirmRewrap = (conversationId: string) => call(API.confirmRewrap, { params: { conversationId }, body: {} });

/** The team's report of a range, or the agent's own (docs/reports.md "The API"). */
export const getReport = (query: QueryOf<typeof API.getReport>) => call(API.getReport, { query });

/** The conversations behind one figure of a report, the latest fact first. */
export const listReportConversations = (query: QueryOf<typeof API.listReportConversations>) => call(API.listReportConversations, { query });
