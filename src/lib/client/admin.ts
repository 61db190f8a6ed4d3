/**
 * The admin pages' calls to the inbox server (docs/inbox-api.md, administration): agents and
 * their invitations, the signing key's public half, rosters signed in the page, grant jobs, company key
 * and webhook secret rotation, deliveries, received events and trust counts. Nothing here ever carries
 * a secret key: signing happens in the crypto worker, and only statements and signatures travel.
 */
import type { DeliveryRecord } from '../wire/v1-records';
import { api } from './http';
import type { SessionInfo, Trust } from './types';
import type { AdminAgentList, AgentInvitation, AgentInvitationRequest, JoinRequest, SigningPublicKey } from '../inbox-api/agents';
import type { CompanyKey, ConfirmedRotation, PendingRotation, RotationConfirmation, WebhookSecretRotation } from '../inbox-api/keys';
import type { AcceptedRoster, GrantJobList, GrantJobView, RosterOverview, SignedRosterUpload } from '../inbox-api/roster';
import type { InboxSettings } from '../inbox-api/records';
import type { AuditEntry } from '../audit/chain';

export type {
	AdminAgent,
	AdminAgentList,
	AgentInvitation,
	AgentInvitationRequest,
	JoinRequest,
	SigningPublicKey
} from '../inbox-api/agents';
export type { CompanyKey, ConfirmedRotation, PendingRotation, RotationConfirmation, WebhookSecretRotation } from '../inbox-api/keys';
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

/** A webhook delivery as the service reports it (docs/contract-gaps.md §9). */
export type Delivery = DeliveryRecord;

export interface ReceivedEvent {
	seq: number;
	eventId: string;
	type: string;
	state: 'received' | 'processed' | 'failed';
	/** Its data failed validation: set aside, never retried (docs/contract-gaps.md §14). */
	rejected: boolean;
	attempts: number;
	lastError: string | null;
	receivedAt: string;
	processedAt: string | null;
}

export interface TrustRow {
	conversationId: string;
	status: string;
	trust: Trust | null;
	keyVersion: number | null;
	lastActivityAt: string;
}

const ADMIN = '/api/admin';
const segment = encodeURIComponent;

function query(params: Record<string, string | number | undefined | null>): string {
	const search = new URLSearchParams();
	for (const [key, value] of Object.entries(params))
		if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
	const text = search.toString();
	return text ? `?${text}` : '';
}

export const listAgents = () => api<AdminAgentList>('GET', `${ADMIN}/agents`);

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
	api<{ data: Delivery[]; nextCursor: string | null }>('GET', `${ADMIN}/deliveries${query({ status })}`);

/** One retry operation per click: a repeated request (a lost answer) does not make a second attempt. */
export const retryDelivery = (deliveryId: string, idempotencyKey: string) =>
	api<Delivery>('POST', `${ADMIN}/deliveries/${segment(deliveryId)}/retry`, { body: {}, idempotencyKey });

export const listReceivedEvents = (input: { state?: string | null; limit?: number; before?: string | null } = {}) =>
	api<{ data: ReceivedEvent[]; nextCursor: string | null }>('GET', `${ADMIN}/events${query(input)}`);

export const getTrust = () => api<{ data: TrustRow[]; counts: Record<string, number> }>('GET', `${ADMIN}/trust`);

export const getSettings = () => api<InboxSettings>('GET', `${ADMIN}/settings`);

export const changeSettings = (change: Partial<InboxSettings>) => api<InboxSettings>('PATCH', `${ADMIN}/settings`, { body: change });

export type AuditPage = { data: AuditEntry[]; hasMore: boolean };

export const listAudit = (filter: { action?: string; actor?: string; before?: number; after?: number; limit?: number }) =>
	api<AuditPage>('GET', `${ADMIN}/audit${query(filter)}`);
