/**
 * The admin pages' calls to the inbox server (docs/inbox-api.md §12): agents and their invitations, the
 * signing key's public half, rosters signed in the page, grant jobs, company key and webhook secret
 * rotation, deliveries, received events, trust counts, what each account spends of its caps, settings and
 * the audit log. The shapes are declared
 * with the server in src/lib/inbox-api/ and passed on here for the pages. Nothing here ever carries a
 * secret key: signing happens in the crypto worker, and only statements and signatures travel.
 */
import { INBOX_API as API, type QueryOf } from '../inbox-api/endpoints';
import { call } from './http';
import type { AgentInvitationRequest, JoinRequest } from '../inbox-api/agents';
import type { RotationConfirmation } from '../inbox-api/keys';
import type { Delivery } from '../inbox-api/operations';
import type { SignedRosterUpload } from '../inbox-api/roster';
import type { InboxSettings } from '../inbox-api/records';

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
	GrantJobView,
	NextRoster,
	RosterEntry,
	RosterOverview,
	RosterView,
	SignedRosterUpload,
	UnverifiedServiceRoster
} from '../inbox-api/roster';

/** An action on an agent's account, each its own route (docs/inbox-api.md §12). */
export type AgentAction = 'disable' | 'enable' | 'reset-key';

const AGENT_ACTIONS = { disable: API.disableAgent, enable: API.enableAgent, 'reset-key': API.resetAgentKey } as const;

export const listAgents = () => call(API.listAgents);

export const listAgentInvitations = () => call(API.listAgentInvitations);

export const revokeAgentInvitation = (invitationId: string) => call(API.revokeAgentInvitation, { params: { invitationId } });

export const inviteAgent = (input: AgentInvitationRequest) => call(API.inviteAgent, { body: input });

export const changeAgent = (accountId: string, action: AgentAction) => call(AGENT_ACTIONS[action], { params: { accountId }, body: {} });

export const removeAgent = (accountId: string) => call(API.removeAgent, { params: { accountId } });

/** The invited person's side: `POST /api/join` signs them in like a login. */
export const joinWithInvitation = (input: JoinRequest) => call(API.join, { body: input });

export const getSigningPublicKey = () => call(API.getSigningPublicKey);

export const getRosters = () => call(API.getRosters);

export const uploadRoster = (roster: SignedRosterUpload) => call(API.uploadRoster, { body: roster });

export const listGrantJobs = () => call(API.listGrantJobs);

export const getGrantJob = (jobId: string) => call(API.getGrantJob, { params: { jobId } });

export const resumeGrantJob = (jobId: string) => call(API.resumeGrantJob, { params: { jobId }, body: {} });

export const getCompanyKey = () => call(API.getCompanyKey);

export const startKeyRotation = () => call(API.startKeyRotation, { body: {} });

export const confirmKeyRotation = (input: RotationConfirmation) => call(API.confirmKeyRotation, { body: input });

export const rotateWebhookSecret = () => call(API.rotateWebhookSecret, { body: {} });

export const listDeliveries = (status: Delivery['status'] | null) => call(API.listDeliveries, { query: { status } });

/** One retry operation per click: a repeated request (a lost answer) does not make a second attempt. */
export const retryDelivery = (deliveryId: string, idempotencyKey: string) =>
	call(API.retryDelivery, { params: { deliveryId }, body: {}, idempotencyKey });

export const listReceivedEvents = (query: QueryOf<typeof API.listReceivedEvents> = {}) => call(API.listReceivedEvents, { query });

export const getTrust = () => call(API.getTrust);

export const getUsage = () => call(API.getUsage);

export const getSettings = () => call(API.getSettings);

export const changeSettings = (change: Partial<InboxSettings>) => call(API.changeSettings, { body: change });

export const listAudit = (filter: QueryOf<typeof API.listAudit>) => call(API.listAudit, { query: filter });
