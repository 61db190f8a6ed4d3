/**
 * Every route of the inbox's own API (docs/inbox-api.md §2–§12), declared once: its method, its route —
 * SvelteKit's route id, also the key of the access table (src/lib/server/api/access-policy.ts) — the
 * body and query it takes and the answer it gives. The pages call through these (src/lib/client/http.ts
 * `call`) and the handlers answer through them (src/lib/server/api/event.ts `endpointRoute`), so a shape
 * cannot differ between the two. Two strings per route run; the rest is for the compiler.
 */
import type {
	AdminAgentList,
	AgentInvitation,
	AgentInvitationRequest,
	JoinRequest,
	PendingAgentInvitation,
	SigningPublicKey
} from './agents';
import type { AuditPage } from './audit';
import type { CompanyKey, ConfirmedRotation, PendingRotation, RotationConfirmation, WebhookSecretRotation } from './keys';
import type { Delivery, DeliveryPage, ReceivedEventPage, TrustOverview } from './operations';
import type {
	AccountView,
	CannedReply,
	ConversationCounts,
	ConversationNote,
	ConversationPage,
	ConversationView,
	InboxSettings,
	Invitation,
	Label,
	LabelColor,
	Team,
	MentionSummary,
	MessageAuthor,
	PendingInvite,
	Readiness,
	SessionInfo,
	StoredMessagePage,
	TeamMember,
	TeamServiceTargets,
	Availability,
	Trust
} from './records';
import type { ReportConversationPage, ReportConversationQuery, ReportQuery, ReportTable, TeamReport } from './reports';
import type { AcceptedRoster, GrantJobList, GrantJobView, RosterOverview, SignedRosterUpload } from './roster';
import type { UsageOverview } from './usage';
import type { PrivateEnvelope } from '../crypto/private-record';
import type { ConversationStatus } from '../wire/v1-records';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One route of the API. `types` is never set: it carries the body, query and answer for the compiler. */
export interface Endpoint<M extends Method = Method, R extends string = string, Body = unknown, Answer = unknown, Query = unknown> {
	readonly method: M;
	readonly route: R;
	readonly types?: { body: Body; answer: Answer; query: Query };
}

type ParamNames<R extends string> = R extends `${string}[${infer Name}]${infer Rest}` ? Name | ParamNames<Rest> : never;

/** The path parameters a route id names: `/api/invites/[inviteId]` → `{ inviteId: string }`. */
export type RouteParams<R extends string> = { [Name in ParamNames<R>]: string };

export type BodyOf<E> = E extends Endpoint<Method, string, infer Body> ? Body : never;
export type AnswerOf<E> = E extends Endpoint<Method, string, unknown, infer Answer> ? Answer : never;
export type QueryOf<E> = E extends Endpoint<Method, string, unknown, unknown, infer Query> ? Query : never;
export type ParamsOf<E> = E extends Endpoint<Method, infer R> ? RouteParams<R> : never;

/** Declares an endpoint: `endpoint<Answer, Body, Query>()('GET', '/api/…')`. No body is `undefined`, an answer of 204 `void`. */
function endpoint<Answer, Body = undefined, Query = undefined>() {
	return <M extends Method, R extends string>(method: M, route: R): Endpoint<M, R, Body, Answer, Query> => ({ method, route });
}

/** `{}` or nothing: the body of a POST that carries no fields. */
type NoFields = Record<string, never>;

export const INBOX_API = {
	// §2 session
	getSession: endpoint<SessionInfo>()('GET', '/api/session'),
	login: endpoint<SessionInfo, { username: string; password: string }>()('POST', '/api/session'),
	logout: endpoint<void>()('DELETE', '/api/session'),
	getUnlockShare: endpoint<{ share: string | null }>()('GET', '/api/session/unlock'),
	keepUnlockShare: endpoint<{ share: string }>()('PUT', '/api/session/unlock'),
	dropUnlockShare: endpoint<void>()('DELETE', '/api/session/unlock'),
	join: endpoint<SessionInfo, JoinRequest>()('POST', '/api/join'),
	// §3 the agent's key
	registerAgentKey: endpoint<{ account: AccountView }, { agentKeyId: string; publicKey: string; replace?: true }>()(
		'PUT',
		'/api/agent-key'
	),
	getCompany: endpoint<{ keyVersion: number; publicKey: string; fingerprint: string }>()('GET', '/api/company'),
	getDemoKeyBackup: endpoint<{ fileName: string; text: string }>()('GET', '/api/demo/key-backup'),
	// §4 conversations
	listConversations: endpoint<
		ConversationPage,
		undefined,
		{ status?: ConversationStatus; trust?: Trust; limit?: number; cursor?: string | null }
	>()('GET', '/api/conversations'),
	countConversations: endpoint<ConversationCounts, undefined, { status?: ConversationStatus; trust?: Trust }>()(
		'GET',
		'/api/conversations/counts'
	),
	getConversation: endpoint<ConversationView>()('GET', '/api/conversations/[conversationId]'),
	listStoredMessages: endpoint<StoredMessagePage, undefined, { afterSeq?: number; limit?: number }>()(
		'GET',
		'/api/conversations/[conversationId]/messages'
	),
	listNotes: endpoint<{ data: ConversationNote[] }>()('GET', '/api/conversations/[conversationId]/notes'),
	addNote: endpoint<ConversationNote, { envelope: PrivateEnvelope; mentions?: string[] }>()(
		'POST',
		'/api/conversations/[conversationId]/notes'
	),
	listReaders: endpoint<{ data: TeamMember[] }>()('GET', '/api/conversations/[conversationId]/readers'),
	listMentions: endpoint<{ data: MentionSummary[] }>()('GET', '/api/mentions'),
	readMentions: endpoint<void, NoFields>()('POST', '/api/conversations/[conversationId]/mentions/read'),
	saveProfile: endpoint<ConversationView, { envelope: PrivateEnvelope; version: number }>()(
		'PUT',
		'/api/conversations/[conversationId]/profile'
	),
	keepPendingProfile: endpoint<void, { sealed: string }>()('PUT', '/api/conversations/[conversationId]/pending-profile'),
	setTeamState: endpoint<ConversationView, { state: 'open' | 'resolved' } | { state: 'snoozed'; snoozedUntil: string }>()(
		'PUT',
		'/api/conversations/[conversationId]/state'
	),
	postPresence: endpoint<void, { state: 'viewing' | 'typing' | 'left' }>()('POST', '/api/conversations/[conversationId]/presence'),
	setAssignee: endpoint<ConversationView, { accountId: string | null }>()('PUT', '/api/conversations/[conversationId]/assignee'),
	setConversationLabels: endpoint<ConversationView, { labelIds: string[] }>()('PUT', '/api/conversations/[conversationId]/labels'),
	setConversationTeam: endpoint<ConversationView, { teamId: string | null }>()('PUT', '/api/conversations/[conversationId]/team'),
	linkCustomer: endpoint<ConversationView, { linkedTo: string | null }>()('PUT', '/api/conversations/[conversationId]/customer-link'),
	reinvite: endpoint<Invitation, { expiresIn?: number }>()('POST', '/api/conversations/[conversationId]/reinvite'),
	confirmRewrap: endpoint<ConversationView, NoFields>()('POST', '/api/conversations/[conversationId]/rewrap'),
	lookUpAuthors: endpoint<{ data: MessageAuthor[] }, { messages: { conversationId: string; clientMessageId: string }[] }>()(
		'POST',
		'/api/message-authors'
	),
	getTeam: endpoint<{ data: TeamMember[] }>()('GET', '/api/team'),
	setAvailability: endpoint<{ availability: Availability }, { away?: boolean; idle?: boolean }>()('PUT', '/api/team/availability'),
	listLabels: endpoint<{ data: Label[] }>()('GET', '/api/labels'),
	listTeams: endpoint<{ data: Team[] }>()('GET', '/api/teams'),
	getServiceTargets: endpoint<TeamServiceTargets>()('GET', '/api/service-targets'),
	listCannedReplies: endpoint<{ data: CannedReply[] }>()('GET', '/api/canned-replies'),
	createCannedReply: endpoint<CannedReply, { scope: 'team' | 'personal'; shortcut: string; body: string }>()('POST', '/api/canned-replies'),
	deleteCannedReply: endpoint<void>()('DELETE', '/api/canned-replies/[replyId]'),
	// §5 invitations
	createInvitation: endpoint<Invitation, { expiresIn?: number }>()('POST', '/api/invites'),
	listPendingInvites: endpoint<{ data: PendingInvite[] }>()('GET', '/api/invites'),
	showInvite: endpoint<Invitation>()('GET', '/api/invites/[inviteId]'),
	revokeInvite: endpoint<void>()('DELETE', '/api/invites/[inviteId]'),
	// §9 health and readiness
	getHealth: endpoint<{ status: 'ok' }>()('GET', '/api/health'),
	getReady: endpoint<Readiness>()('GET', '/api/ready'),
	// §12 administration
	listAccounts: endpoint<{ data: AccountView[] }>()('GET', '/api/admin/accounts'),
	createAccount: endpoint<
		{ account: AccountView },
		{ username: string; displayName: string; role: AccountView['role']; password: string }
	>()('POST', '/api/admin/accounts'),
	listAgents: endpoint<AdminAgentList>()('GET', '/api/admin/agents'),
	removeAgent: endpoint<void>()('DELETE', '/api/admin/agents/[accountId]'),
	disableAgent: endpoint<void, NoFields>()('POST', '/api/admin/agents/[accountId]/disable'),
	enableAgent: endpoint<void, NoFields>()('POST', '/api/admin/agents/[accountId]/enable'),
	resetAgentKey: endpoint<void, NoFields>()('POST', '/api/admin/agents/[accountId]/reset-key'),
	listAgentInvitations: endpoint<{ data: PendingAgentInvitation[] }>()('GET', '/api/admin/agent-invitations'),
	inviteAgent: endpoint<AgentInvitation, AgentInvitationRequest>()('POST', '/api/admin/agent-invitations'),
	revokeAgentInvitation: endpoint<void>()('DELETE', '/api/admin/agent-invitations/[invitationId]'),
	getSigningPublicKey: endpoint<SigningPublicKey>()('GET', '/api/admin/signing-key'),
	getRosters: endpoint<RosterOverview>()('GET', '/api/admin/roster'),
	uploadRoster: endpoint<AcceptedRoster, SignedRosterUpload>()('POST', '/api/admin/roster'),
	listGrantJobs: endpoint<GrantJobList>()('GET', '/api/admin/grant-jobs'),
	getGrantJob: endpoint<GrantJobView>()('GET', '/api/admin/grant-jobs/[jobId]'),
	resumeGrantJob: endpoint<GrantJobView, NoFields>()('POST', '/api/admin/grant-jobs/[jobId]/resume'),
	getCompanyKey: endpoint<CompanyKey>()('GET', '/api/admin/company-key'),
	startKeyRotation: endpoint<PendingRotation, NoFields>()('POST', '/api/admin/company-key/rotation'),
	confirmKeyRotation: endpoint<ConfirmedRotation, RotationConfirmation>()('POST', '/api/admin/company-key/rotation/confirm'),
	rotateWebhookSecret: endpoint<WebhookSecretRotation, NoFields>()('POST', '/api/admin/webhook-secret/rotation'),
	listDeliveries: endpoint<DeliveryPage, undefined, { status?: Delivery['status'] | null }>()('GET', '/api/admin/deliveries'),
	retryDelivery: endpoint<Delivery, NoFields>()('POST', '/api/admin/deliveries/[deliveryId]/retry'),
	listReceivedEvents: endpoint<ReceivedEventPage, undefined, { state?: string | null; limit?: number; before?: string | null }>()(
		'GET',
		'/api/admin/events'
	),
	getTrust: endpoint<TrustOverview>()('GET', '/api/admin/trust'),
	getUsage: endpoint<UsageOverview>()('GET', '/api/admin/usage'),
	getSettings: endpoint<InboxSettings>()('GET', '/api/admin/settings'),
	changeSettings: endpoint<InboxSettings, Partial<InboxSettings>>()('PATCH', '/api/admin/settings'),
	listAudit: endpoint<AuditPage, undefined, { action?: string; actor?: string; before?: number; after?: number; limit?: number }>()(
		'GET',
		'/api/admin/audit'
	),
	createLabel: endpoint<Label, { name: string; color: LabelColor }>()('POST', '/api/admin/labels'),
	updateLabel: endpoint<{ data: Label[] }, { name?: string; color?: LabelColor }>()('PATCH', '/api/admin/labels/[labelId]'),
	deleteLabel: endpoint<void>()('DELETE', '/api/admin/labels/[labelId]'),
	createTeam: endpoint<Team, { name: string; memberIds: string[] }>()('POST', '/api/admin/teams'),
	updateTeam: endpoint<{ data: Team[] }, { name?: string; memberIds?: string[] }>()('PATCH', '/api/admin/teams/[teamId]'),
	deleteTeam: endpoint<void>()('DELETE', '/api/admin/teams/[teamId]'),
	// team reports (docs/reports.md)
	getReport: endpoint<TeamReport, undefined, ReportQuery>()('GET', '/api/reports'),
	listReportConversations: endpoint<ReportConversationPage, undefined, ReportConversationQuery>()('GET', '/api/reports/conversations'),
	/** CSV text, not JSON. */
	getReportCsv: endpoint<string, undefined, ReportQuery & { table: ReportTable }>()('GET', '/api/reports/csv')
} as const;

export type InboxApi = typeof INBOX_API;
export type EndpointName = keyof InboxApi;
