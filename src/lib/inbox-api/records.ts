/**
 * The inbox server's records as the browser receives them (docs/inbox-api.md §2–§4), declared once for
 * the server that builds them and the pages that read them. Types only: nothing here runs.
 */
import type { Envelope } from '../crypto/message';
import type { PrivateEnvelope } from '../crypto/private-record';
import type { Wrap } from '../crypto/wrap';
import type { AwayReply } from '../service-targets/away-reply';
import type { BusinessHours } from '../service-targets/business-hours';
import type { ServiceTargets } from '../service-targets/targets';
import type { AttachmentRef, ConversationStatus, InviteRecord } from '../wire/v1-records';

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

/** The answer of `POST /api/session`, `GET /api/session` (§2) and `POST /api/join` (§12): who is signed in, until when. */
export interface SessionInfo {
	account: AccountView;
	expiresAt: string;
	/** The demo launcher left a key backup for this account (demo only), so the key page offers it. */
	demoKeyBackup: boolean;
	/** An admin, or an agent of the latest roster: the team's labels and canned replies are theirs to read. */
	rosterAgent: boolean;
}

/** A conversation key sealed for one agent of a roster (contract 6.7). */
export interface AgentWrapForMe {
	agentKeyId: string;
	rosterVersion: number;
	wrap: Wrap;
}

export type ConversationKeyEventKind = 'reinvited' | 'key_changed' | 'rewrap_approved';

/**
 * A key event of a conversation (§4): who re-invited the customer, the customer's new key (its
 * contract 2.2 fingerprint in `details.fingerprint`), who approved the rewrap. `actorName` is null for
 * the customer's own change.
 */
export interface ConversationKeyEvent {
	kind: ConversationKeyEventKind;
	actorName: string | null;
	at: string;
	/**
	 * A key change's new fingerprint and trust; an approval's standing: the approver's role, since when
	 * they had it, and for an admin who made them one (`the command line` for `npm run admin`).
	 */
	details: { fingerprint?: string; trust?: Trust; approverRole?: Role; roleSince?: string; roleGrantedBy?: string };
}

/** Who lets a verified re-invitation's new key have the history: the server at once, or a second person. */
export type RewrapApproval = 'automatic' | 'second_person';

/** The team's settings (§ Settings). */
export interface InboxSettings {
	reinviteRewrap: RewrapApproval;
	/** An unassigned conversation is assigned to the agent who replies first. */
	assignOnFirstReply: boolean;
	/** A conversation the customer writes to, unassigned, goes to the online agent with access whose turn it is. */
	roundRobin: boolean;
	/** The round-robin gives no agent more open conversations than this (0: no cap). */
	roundRobinCap: number;
	/** The team's opening hours and holidays (docs/service-targets.md), or null: none. */
	businessHours: BusinessHours | null;
	/** First-response and resolution targets (docs/service-targets.md), or null: none. */
	serviceTargets: ServiceTargets | null;
	/** The reply a customer gets while the team is away (docs/service-targets.md "Away reply"), or null: off. */
	awayReply: AwayReply | null;
}

/** What every agent reads of the settings to show each conversation's deadline (docs/service-targets.md). */
export type TeamServiceTargets = Pick<InboxSettings, 'businessHours' | 'serviceTargets'>;

/** Whether an agent is there (§4 "Availability"). */
export type Availability = 'online' | 'away' | 'offline';

/** A team member as the inbox's pickers show them (§4 "Team"). */
export interface TeamMember {
	accountId: string;
	displayName: string;
	role: Role;
	availability: Availability;
}

export type ConversationActivityKind =
	'assigned' | 'unassigned' | 'team_assigned' | 'team_unassigned' | 'resolved' | 'reopened' | 'snoozed';

/** Whether the team still has work on a conversation (§4 "Lifecycle"). */
export type TeamState = 'open' | 'resolved' | 'snoozed';

/**
 * What the team did to a conversation (§4 `activity`): who assigned it to whom (`details.assigneeName`;
 * `details.automatic` when a rule assigned it, `details.rule` which one), who unassigned it; who resolved, reopened or
 * snoozed it (`details.until`), and when it opened again by itself (`details.reason`, `actorName` null);
 * who gave it to a team or took it from one (`details.teamName`, §4 "Teams").
 */
export interface ConversationActivity {
	kind: ConversationActivityKind;
	actorName: string | null;
	at: string;
	details: {
		assigneeName?: string;
		/** The team it was given to, or taken from; for a round-robin turn, the team whose members took turns. */
		teamName?: string;
		automatic?: boolean;
		/** The rule of an automatic assignment (absent on lines written before the round-robin: the first reply). */
		rule?: 'first_reply' | 'round_robin';
		/** A snooze's end. */
		until?: string;
		/** Why it opened again by itself: the customer wrote, or the snooze ended. */
		reason?: 'customer_message' | 'snooze_ended';
	};
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
	/**
	 * Whether the caller may read it: an admin, or an agent of the latest roster whose key it is sealed
	 * for (§1 "Access"). Otherwise the list shows only that it exists: no wraps, key events, activity,
	 * labels, links or profile (they are empty), and its messages, notes and presence answer 403.
	 */
	readable: boolean;
	agentWraps: AgentWrapForMe[];
	/** The latest key events, oldest first. */
	keyEvents: ConversationKeyEvent[];
	/** With the second-person policy: whether this account may approve the pending rewrap (not the one who re-invited). */
	mayApproveRewrap: boolean;
	/** Whether the team still has work on it; a snooze ends at `snoozedUntil`. */
	teamState: TeamState;
	snoozedUntil: string | null;
	/** The agent who owns the conversation, or null. */
	assignee: { accountId: string; displayName: string } | null;
	/** The team it is given to (§4 "Teams"), or null. */
	team: { teamId: string; name: string } | null;
	/** The latest team activity, oldest first. */
	activity: ConversationActivity[];
	/** The customer's other conversations, as the team linked them (§4 "Customer profile"). */
	linkedConversations: string[];
	/** The ids of the labels on it (§4 "Labels"). */
	labels: string[];
	/** The customer's profile (name, contact notes) as ciphertext, or null before anyone wrote one. */
	profile: CustomerProfile | null;
	/** The customer's first message ever, and the first reply an agent sent at or after it (docs/service-targets.md). */
	firstCustomerAt: string | null;
	firstReplyAt: string | null;
}

/**
 * The customer's profile (§4 "Customer profile"; docs/private-records.md, kind `profile`): the JSON text
 * `{ "name", "notes" }` encrypted under the conversation key. `version` counts the saves.
 */
export interface CustomerProfile {
	authorId: string;
	authorName: string;
	envelope: PrivateEnvelope;
	version: number;
	updatedAt: string;
}

/**
 * Who sent one of the company's messages (§4 "Message authors"): an agent through this inbox; the
 * inbox, before it recorded who (`inbox`); or something outside the inbox with the company's key
 * (`outside`). `accountId` is null once the account is deleted; `displayName` is then the name it had.
 */
export type MessageAuthor =
	| { conversationId: string; clientMessageId: string; origin: 'agent'; accountId: string | null; displayName: string }
	| { conversationId: string; clientMessageId: string; origin: 'inbox' | 'outside' };

/**
 * A private note (§4 "Notes"; docs/private-records.md): ciphertext only, readable by whoever can open
 * the conversation key. `authorId` is part of the envelope's AD.
 */
export interface ConversationNote {
	noteId: string;
	conversationId: string;
	authorId: string;
	authorName: string;
	envelope: PrivateEnvelope;
	createdAt: string;
}

/**
 * A conversation where a note mentioned this account (§4 "Mentions"): how many of those mentions it has
 * not seen (it sees them by opening the conversation after them), the newest one's time and writer.
 */
export interface MentionSummary {
	conversationId: string;
	unreadCount: number;
	lastMentionedAt: string;
	lastMentionedBy: string;
}

/** A live `mention.created`, sent to the mentioned account alone (§7): who, where, never what. */
export interface MentionEvent {
	conversationId: string;
	noteId: string;
	accountId: string;
	authorName: string;
	createdAt: string;
}

/** The colours a label may have (§4 "Labels"): names, never CSS, so nothing but a colour reaches a page. */
export const LABEL_COLORS = ['gray', 'red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export type LabelColor = (typeof LABEL_COLORS)[number];

export interface Label {
	labelId: string;
	name: string;
	color: LabelColor;
}

/** A named group of agents (§4 "Teams"); `memberIds` are account ids. */
export interface Team {
	teamId: string;
	name: string;
	memberIds: string[];
}

/** A canned reply (§4 "Canned replies"): the team's (`scope` team) or the agent's own. */
export interface CannedReply {
	replyId: string;
	scope: 'team' | 'personal';
	shortcut: string;
	body: string;
	updatedAt: string;
}

/** An invitation the customer has not answered yet (§5), never with its secret. */
export interface PendingInvite {
	inviteId: string;
	conversationId: string;
	kind: 'invite' | 'reinvite';
	createdByName: string | null;
	createdAt: string;
	expiresAt: string;
	/** Whether its link can be shown again (made by a version of the inbox that keeps what it takes). */
	showable: boolean;
	/** Whether the caller may show its link again and revoke it: who made it, and admins (docs/inbox-api.md §5). */
	mayManage: boolean;
}

/** A page of the conversation list, with the newest live event committed before it was read (§4). */
export interface ConversationPage {
	data: ConversationView[];
	nextCursor: string | null;
	liveEventId: number;
}

/**
 * The list's counts (§4 "Counts"): of the conversations the account may read, within the list's `status`
 * and `trust` filters. `total` and `unread` (conversations with unread messages) by status and `all`;
 * `lifecycle` by the team's state; `assignment` and `labels` over the open queue (not closed, team
 * state `open`), `byAgent` and `labels` keyed by account and label id.
 */
export interface ConversationCounts {
	total: Record<ConversationStatus | 'all', number>;
	unread: Record<ConversationStatus | 'all', number>;
	lifecycle: Record<TeamState, number>;
	assignment: { mine: number; unassigned: number; all: number; byAgent: Record<string, number> };
	labels: Record<string, number>;
	/** Open conversations per team id (§4 "Teams"). */
	teams: Record<string, number>;
	/** Open conversations due within the hour and past their deadline at the moment of the answer (docs/service-targets.md). */
	service: { breaching: number; overdue: number };
}

/**
 * A message as the inbox stored it (§4 `GET …/messages`), the same fields as a `/v1` history item; `seq` is
 * null for one the service delivered without it (the inbox shows it first, never hides it).
 */
export interface StoredMessage {
	messageId: string;
	conversationId: string;
	seq: number | null;
	senderType: 'user' | 'company';
	contentType: string;
	encryption: Envelope;
	attachment: AttachmentRef | null;
	createdAt: string;
}

export interface StoredMessagePage {
	data: StoredMessage[];
	hasMore: boolean;
}

/** A new invitation or re-invitation (§5): the service's record and the link, shown once. */
export interface Invitation extends InviteRecord {
	/** `<inviteUrl>#s=…&fp=…` (contract 6.3). */
	link: string;
}

/** Why a process is not ready for work (docs/operations.md "Readiness"). */
export type UnreadyReason = 'draining' | 'database' | 'company_key_files';

/** `GET /api/ready`: 200 when ready, 503 with the reasons otherwise (§9). */
export interface Readiness {
	status: 'ready' | 'unready';
	reasons: UnreadyReason[];
	/** The stored webhook events not processed yet and the oldest one's age; null when the database does not answer. */
	queue: { depth: number; oldestAgeSeconds: number } | null;
	/** Whether this process's last call to the service was answered (the service is shared: it does not make the process unready). */
	service: 'reachable' | 'unreachable';
}
