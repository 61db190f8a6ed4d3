/**
 * Who may call what (docs/inbox-api.md §1 "Access"; docs/threat-model.md): every route under
 * `src/routes` that answers requests, and every `/v1` route of the contract (4) as the signing proxy
 * sees it, names the least its caller must be. The gate (gate.ts) applies this table before any handler
 * runs; a route without an entry answers no one. What a level checks, from the least:
 *
 * - `anonymous`: anyone, even without a session (sign-in, joining, health; webhooks carry their own HMAC);
 * - `session`: any signed-in account, also one without a key or outside the roster (its own session and
 *   key, the list's bare facts, its live stream, filtered);
 * - `rosterAgent`: an admin, or an agent whose registered key is in the latest verified roster;
 * - `conversationAgent`: an admin, or a roster agent whose key the conversation is sealed for
 *   (`conversations/access.ts`); the conversation is the route's `[conversationId]`, or for a proxied
 *   request the id in its path or its body;
 * - `secondPerson`: as `conversationAgent`, and the conversation domain then wants someone other than
 *   the person who asked, who already had their role when it was asked (`conversations/rewrap.ts`);
 * - `admin`: an admin.
 *
 * A rule that depends on the thing itself (only who made an invitation sees its link again; only who
 * invited writes the profile kept with it) stays with that thing's domain module, after the gate.
 */
import type { V1RouteName } from '../../wire/v1';

export const ACCESS_LEVELS = ['anonymous', 'session', 'rosterAgent', 'conversationAgent', 'secondPerson', 'admin'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** The levels that need the conversation a request names. */
export const CONVERSATION_LEVELS: ReadonlySet<Access> = new Set<Access>(['conversationAgent', 'secondPerson']);

/** A route's entry: a level per method it answers, the same level whatever the method, or the proxy's own table. */
export type RouteAccess = { readonly [M in HttpMethod]?: Access } | { readonly anyMethod: Access } | typeof PROXIED;

/** The signing proxy's route: each `/v1` route has its own entry in PROXY_ACCESS. */
export const PROXIED = 'proxied';

/** Every route id of `src/routes` (SvelteKit's `event.route.id`) that has a `+server.ts`. */
export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
	// an unknown /api path answers 404 to anyone
	'/api/[...unknown]': { anyMethod: 'anonymous' },
	'/api/session': { GET: 'session', POST: 'anonymous', DELETE: 'anonymous' },
	'/api/session/unlock': { GET: 'session', PUT: 'session', DELETE: 'session' },
	'/api/join': { POST: 'anonymous' },
	'/api/health': { GET: 'anonymous' },
	'/api/ready': { GET: 'anonymous' },
	'/api/agent-key': { PUT: 'session' },
	'/api/company': { GET: 'session' },
	'/api/team': { GET: 'session' },
	'/api/team/availability': { PUT: 'rosterAgent' },
	'/api/events': { GET: 'session' },
	'/api/demo/key-backup': { GET: 'session' },
	'/api/conversations': { GET: 'session' },
	'/api/conversations/counts': { GET: 'session' },
	'/api/conversations/[conversationId]': { GET: 'session' },
	'/api/conversations/[conversationId]/messages': { GET: 'conversationAgent' },
	'/api/conversations/[conversationId]/notes': { GET: 'conversationAgent', POST: 'conversationAgent' },
	'/api/conversations/[conversationId]/readers': { GET: 'conversationAgent' },
	'/api/conversations/[conversationId]/mentions/read': { POST: 'conversationAgent' },
	'/api/conversations/[conversationId]/profile': { PUT: 'conversationAgent' },
	'/api/conversations/[conversationId]/pending-profile': { PUT: 'rosterAgent' },
	'/api/conversations/[conversationId]/state': { PUT: 'conversationAgent' },
	'/api/conversations/[conversationId]/presence': { POST: 'conversationAgent' },
	'/api/conversations/[conversationId]/assignee': { PUT: 'conversationAgent' },
	'/api/conversations/[conversationId]/labels': { PUT: 'conversationAgent' },
	'/api/conversations/[conversationId]/team': { PUT: 'conversationAgent' },
	'/api/conversations/[conversationId]/customer-link': { PUT: 'conversationAgent' },
	'/api/conversations/[conversationId]/reinvite': { POST: 'conversationAgent' },
	'/api/conversations/[conversationId]/rewrap': { POST: 'secondPerson' },
	'/api/message-authors': { POST: 'rosterAgent' },
	'/api/invites': { GET: 'rosterAgent', POST: 'rosterAgent' },
	'/api/invites/[inviteId]': { GET: 'rosterAgent', DELETE: 'rosterAgent' },
	'/api/labels': { GET: 'rosterAgent' },
	'/api/teams': { GET: 'rosterAgent' },
	'/api/service-targets': { GET: 'rosterAgent' },
	// the caller's own mentions only (conversations/mentions.ts)
	'/api/mentions': { GET: 'session' },
	'/api/canned-replies': { GET: 'rosterAgent', POST: 'rosterAgent' },
	'/api/canned-replies/[replyId]': { DELETE: 'rosterAgent' },
	// an agent's reports hold only their own figures (api/reports.ts); an admin's the team's
	'/api/reports': { GET: 'rosterAgent' },
	'/api/reports/conversations': { GET: 'rosterAgent' },
	'/api/reports/csv': { GET: 'rosterAgent' },
	'/api/v1/[...rest]': PROXIED,
	'/api/admin/accounts': { GET: 'admin', POST: 'admin' },
	'/api/admin/agents': { GET: 'admin' },
	'/api/admin/agents/[accountId]': { DELETE: 'admin' },
	'/api/admin/agents/[accountId]/disable': { POST: 'admin' },
	'/api/admin/agents/[accountId]/enable': { POST: 'admin' },
	'/api/admin/agents/[accountId]/reset-key': { POST: 'admin' },
	'/api/admin/agent-invitations': { GET: 'admin', POST: 'admin' },
	'/api/admin/agent-invitations/[invitationId]': { DELETE: 'admin' },
	'/api/admin/audit': { GET: 'admin' },
	'/api/admin/company-key': { GET: 'admin' },
	'/api/admin/company-key/rotation': { POST: 'admin' },
	'/api/admin/company-key/rotation/confirm': { POST: 'admin' },
	'/api/admin/deliveries': { GET: 'admin' },
	'/api/admin/deliveries/[deliveryId]/retry': { POST: 'admin' },
	'/api/admin/events': { GET: 'admin' },
	'/api/admin/grant-jobs': { GET: 'admin' },
	'/api/admin/grant-jobs/[jobId]': { GET: 'admin' },
	'/api/admin/grant-jobs/[jobId]/resume': { POST: 'admin' },
	'/api/admin/labels': { POST: 'admin' },
	'/api/admin/labels/[labelId]': { PATCH: 'admin', DELETE: 'admin' },
	'/api/admin/teams': { POST: 'admin' },
	'/api/admin/teams/[teamId]': { PATCH: 'admin', DELETE: 'admin' },
	'/api/admin/roster': { GET: 'admin', POST: 'admin' },
	'/api/admin/settings': { GET: 'admin', PATCH: 'admin' },
	'/api/admin/signing-key': { GET: 'admin' },
	'/api/admin/trust': { GET: 'admin' },
	'/api/admin/usage': { GET: 'admin' },
	'/api/admin/webhook-secret/rotation': { POST: 'admin' },
	// signed with the webhook secret (contract 5.2): the receiver checks the HMAC before anything else
	'/webhooks/service': { POST: 'anonymous' },
	// behind the bearer token of METRICS_TOKEN, which the route checks (docs/operations.md "Metrics")
	'/metrics': { GET: 'anonymous' },
	// the PDF preview's frame and pdf.js for it (pdf-frame.ts): public files, asked for by a frame without an origin
	'/pdf-frame.html': { GET: 'anonymous' },
	'/pdf-frame/[script]': { GET: 'anonymous' }
};

/** Where a proxied request names its conversation: the first id of its path, or `conversationId` of its JSON body. */
export type ConversationSource = 'path' | 'body';

export interface ProxyRule {
	access: Access;
	conversation?: ConversationSource;
}

/**
 * Every `/v1` route, as the signing proxy sees it: the level its caller needs, or `null` when the proxy
 * never forwards it — the server alone makes invitations (with their secret, `/api/invites` and
 * `/api/conversations/{id}/reinvite`), rewraps, uploads rosters and agent wraps (after verifying them),
 * and reads deliveries (`/api/admin/deliveries`).
 */
export const PROXY_ACCESS: Readonly<Record<V1RouteName, ProxyRule | null>> = {
	listConversations: { access: 'rosterAgent' },
	getConversation: { access: 'conversationAgent', conversation: 'path' },
	listMessages: { access: 'conversationAgent', conversation: 'path' },
	sendMessage: { access: 'conversationAgent', conversation: 'body' },
	markRead: { access: 'conversationAgent', conversation: 'path' },
	typing: { access: 'conversationAgent', conversation: 'path' },
	close: { access: 'conversationAgent', conversation: 'path' },
	createAttachmentUpload: { access: 'conversationAgent', conversation: 'path' },
	getAttachmentDownload: { access: 'conversationAgent', conversation: 'path' },
	createInvite: null,
	reinvite: null,
	rewrap: null,
	listAgentWraps: null,
	uploadAgentWraps: null,
	getRoster: null,
	uploadRoster: null,
	listDeliveries: null,
	retryDelivery: null
};

/** The level `method` needs on the route `routeId`; undefined when the route does not answer that method. */
export function accessOf(routeId: string, method: string): Access | typeof PROXIED | undefined {
	const entry = ROUTE_ACCESS[routeId];
	if (entry === undefined) return undefined;
	if (entry === PROXIED) return PROXIED;
	if ('anyMethod' in entry) return entry.anyMethod;
	return (entry as { readonly [M in HttpMethod]?: Access })[method === 'HEAD' ? 'GET' : (method as HttpMethod)];
}
