/**
 * The admin pages' calls to the inbox server (docs/inbox-api.md §12): agents and their invitations, the
 * signing key's public half, rosters signed in the page, grant jobs, company key and webhook secret
 * rotation, deliveries, received events, trust counts, what each account spends of its caps, settings and
 * the audit log. The shapes are declared
 * with the server in src/lib/inbox-api/ and passed on here for the pages. Nothing here ever carries a
 * secret key: signing happens in the crypto worker, and only statements and signatures travel.
 */
import { api } from './http';
import type { SessionInfo } from './types';
import type {
	AdminAgentList,
	AgentInvitation,
	AgentInvitationRequest,
	JoinRequest,
	PendingAgentInvitation,
	SigningPublicKey
} from '../inbox-api/agents';
import type { CompanyKey, ConfirmedRotation, PendingRotation, RotationConfirmation, WebhookSecretRotation } from '../inbox-api/keys';
import type { Delivery, DeliveryPage, ReceivedEventPage, TrustOverview } from '../inbox-api/operations';
import type { AcceptedRoster, GrantJobList, GrantJobView, RosterOverview, SignedRosterUpload } from '../inbox-api/roster';
import type { InboxSettings } from '../inbox-api/records';
import type { AuditPage } from '../inbox-api/audit';
import type { UsageOverview } from '../inbox-api/usage';
import { queryString } from '../query-string';

export type {
	AdminAgent,
	AdminAgentList,
	AgentInvitation,
	AgentInvitationRequest,
	JoinRequest,
	SigningPublicKey
} from '../inbox-api/agents';
export type { AuditPage } from '../inbox-api/audit';
export type { AccountUsage, UsageOverview } from '../inbox-api/usage';
export type { CompanyKey, ConfirmedRotation, PendingRotation, RotationConfirmation, WebhookSecretRotation } from '../inbox-api/keys';
export type { Delivery, DeliveryPage, ReceivedEvent, ReceivedEventPage, TrustOverview, TrustRow } from '../inbox-api/operations';
export type {
	AcceptedRoster,
	GrantJobView as GrantJob,
	NextRoster,
	RosterEntry,
	RosterOverview,
	RosterView,
	SignedRosterUpload,
	UnverifiedServiceRoster
} from '../inbox-api/roster';

const ADMIN = '/api/admin';
const segment = encodeURIComponent;

export const listAgents = () => api<AdminAgentList>('GET', `${ADMIN}/agents`);

export const listAgentInvitations = () => api<{ data: PendingAgentInvitation[] }>('GET', `${ADMIN}/agent-invitations`);

export const revokeAgentInvitation = (invitationId: string) => api<void>('DELETE', `${ADMIN}/agent-invitations/${segment(invitationId)}`);

export const inviteAgent = (input: AgentInvitationRequest) => api<AgentInvitation>('POST', `${ADMIN}/agent-invitations`, { body: input });

export type AgentAction = 'disable' | 'enable' | 'reset-key';

export const changeAgent = (accountId: string, action: AgentAction) =>
	api<unknown>('POST', `${ADMIN}/agents/${segment(accountId)}/${action}`, { body: {} });

export const removeAgent = (accountId: string) => api<unknown>('DELETE', `${ADMIN}/agents/${segment(accountId)}`);

/** The invited person's side: `POST /api/join` signs them in like a login. */
export const joinWithInvitation = (input: JoinRequest) => api<SessionInfo>('POST', '/api/join', { body: input });

export const getSigningPublicKey = () => api<SigningPublicKey>('GET', `${ADMIN}/signing-key`);

export const getRosters = () => api<RosterOverview>('GET', `${ADMIN}/roster`);

export const uploadRoster = (roster: SignedRosterUpload) => api<AcceptedRoster>('POST', `${ADMIN}/roster`, { body: roster });

export const listGrantJobs = () => api<GrantJobList>('GET', `${ADMIN}/grant-jobs`);

export const getGrantJob = (jobId: string) => api<GrantJobView>('GET', `${ADMIN}/grant-jobs/${segment(jobId)}`);

export const resumeGrantJob = (jobId: string) => api<GrantJobView>('POST', `${ADMIN}/grant-jobs/${segment(jobId)}/resume`, { body: {} });

export const getCompanyKey = () => api<CompanyKey>('GET', `${ADMIN}/company-key`);

export const startKeyRotation = () => api<PendingRotation>('POST', `${ADMIN}/company-key/rotation`, { body: {} });

export const confirmKeyRotation = (input: RotationConfirmation) =>
	api<ConfirmedRotation>('POST', `${ADMIN}/company-key/rotation/confirm`, { body: input });

export const rotateWebhookSecret = () => api<WebhookSecretRotation>('POST', `${ADMIN}/webhook-secret/rotation`, { body: {} });

export const listDeliveries = (status: Delivery['status'] | null) =>
	api<DeliveryPage>('GET', `${ADMIN}/deliveries${queryString({ status })}`);

/** One retry operation per click: a repeated request (a lost answer) does not make a second attempt. */
export const retryDelivery = (deliveryId: string, idempotencyKey: string) =>
	api<Delivery>('POST', `${ADMIN}/deliveries/${segment(deliveryId)}/retry`, { body: {}, idempotencyKey });

export const listReceivedEvents = (input: { state?: string | null; limit?: number; before?: string | null } = {}) =>
	api<ReceivedEventPage>('GET', `${ADMIN}/events${queryString(input)}`);

export const getTrust = () => api<TrustOverview>('GET', `${ADMIN}/trust`);

export const getUsage = () => api<UsageOverview>('GET', `${ADMIN}/usage`);

export const getSettings = () => api<InboxSettings>('GET', `${ADMIN}/settings`);

export const changeSettings = (change: Partial<InboxSettings>) => api<InboxSettings>('PATCH', `${ADMIN}/settings`, { body: change });

export const listAudit = (filter: { action?: string; actor?: string; before?: number; after?: number; limit?: number }) =>
	api<AuditPage>('GET', `${ADMIN}/audit${queryString(filter)}`);
