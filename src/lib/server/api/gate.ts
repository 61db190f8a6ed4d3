/**
 * What every `/api` request passes before a route sees it (docs/inbox-api.md §1; docs/threat-model.md,
 * "An outsider", "An account outside the roster"), cheapest first so that nobody without a session can
 * make the server work hard:
 *  1. a change (not GET/HEAD) must come from the server's own origin;
 *  2. the path, query and headers must not carry the signing secret (short: cheap to scan);
 *  3. the route must answer the method (access-policy.ts names the methods of every route);
 *  4. the session is resolved from the cookie;
 *  5. without a session, a body is at most PUBLIC_BODY_LIMIT bytes (login and joining need less), read
 *     before anything is derived from it: a flood of large unauthenticated bodies costs a read, no scan;
 *  6. the body must not carry the signing secret (scanned with a bounded number of key derivations);
 *  7. a proxied path must be plain segments of a `/v1` route the proxy forwards (proxy/allowlist.ts);
 *  8. the caller must be what the access table asks of the route — for the signing proxy, of the `/v1`
 *     route it forwards to: signed in, an admin, an agent of the latest roster, or one with access to the
 *     conversation the request names (which must exist).
 */
import { ContractError } from '../../errors';
import { isId } from '../../crypto/rules';
import { SESSION_COOKIE, type Session } from '../auth/sessions';
import { requireConversationAccess, requireRosterAgent } from '../conversations/access';
import type { Inbox } from '../inbox';
import { parseJsonObject, readBodyBytes, decodeUtf8 } from '../http/responses';
import { refuseSigningSecret, refuseSigningSecretInRequestLine } from '../http/secret-guard';
import { allowRequest, type AllowedRequest } from '../proxy/allowlist';
import { accessOf, CONVERSATION_LEVELS, PROXIED, type Access } from './access-policy';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The largest body accepted before a session exists: the login and join forms are a few hundred bytes. */
export const PUBLIC_BODY_LIMIT = 16 * 1024;

/** The prefix of the signing proxy's paths; what follows is the `/v1` path, still percent-encoded. */
const PROXY_PREFIX = '/api/v1/';

export interface GateEvent {
	request: Request;
	url: URL;
	route: { id: string | null };
	params: Partial<Record<string, string>>;
	cookies: { get(name: string): string | undefined };
}

/** What the gate let through: the session, the level the route asked for, and what it checked it against. */
export interface GatePass {
	session: Session | undefined;
	access: Access;
	/** The conversation the request acts on, when the level needs one. */
	conversationId?: string;
	/** For the signing proxy: the `/v1` route, its ids and the canonical path it forwards to. */
	proxied?: AllowedRequest;
}

/** Passes the request through the checks above; throws a ContractError with the refusal. */
export async function passGate(inbox: Inbox, event: GateEvent): Promise<GatePass> {
	const method = event.request.method.toUpperCase();
	const changes = !SAFE_METHODS.has(method);
	if (changes && event.request.headers.get('origin') !== inbox.config.origin) {
		throw new ContractError('ORIGIN_REJECTED', `requests that change something must come from ${inbox.config.origin}`);
	}
	const { signingPublicKey } = await inbox.companyKeys();
	refuseSigningSecretInRequestLine(event.url, event.request.headers, signingPublicKey);
	// Stryker disable next-line all: equivalent: no route has the id '' or any other text the table does not name
	const level = accessOf(event.route.id ?? '', method);
	if (level === undefined) {
		throw event.route.id === null
			? new ContractError('NOT_FOUND', `nothing at ${event.url.pathname}`)
			: new ContractError('METHOD_NOT_ALLOWED', `${method} is not allowed on ${event.url.pathname}`);
	}
	const session = await inbox.session(event.cookies.get(SESSION_COOKIE));
	// Stryker disable next-line all: equivalent: a GET or HEAD has no body (fetch refuses one), so reading and scanning it finds nothing
	if (changes) {
		if (!session) await readBodyBytes(event.request.clone(), PUBLIC_BODY_LIMIT);
		await refuseSigningSecret(event.request, signingPublicKey);
	}
	if (level === PROXIED && !session) throw new ContractError('UNAUTHENTICATED', 'log in first');
	const proxied =
		level === PROXIED
			? allowRequest(
					method,
					// Stryker disable next-line StringLiteral: equivalent: only `/api/v1` itself lacks the prefix, and no `/v1` route is '' or any other text the table does not name
					event.url.pathname.startsWith(PROXY_PREFIX) ? event.url.pathname.slice(PROXY_PREFIX.length) : '',
					event.url.searchParams
				)
			: undefined;
	const access = proxied ? proxied.rule.access : (level as Access);
	const conversationId = CONVERSATION_LEVELS.has(access) ? await conversationOf(event, proxied) : undefined;
	await requireAccess(inbox, access, session, conversationId);
	return { session, access, conversationId, proxied };
}

/** Refuses the caller unless it is what `access` asks for. */
async function requireAccess(inbox: Inbox, access: Access, session: Session | undefined, conversationId?: string): Promise<void> {
	if (access === 'anonymous') return;
	if (!session) throw new ContractError('UNAUTHENTICATED', 'log in first');
	const { account } = session;
	if (access === 'session') return;
	if (access === 'admin') {
		if (account.role !== 'admin') throw new ContractError('FORBIDDEN', 'this needs an admin account');
		return;
	}
	if (access === 'rosterAgent') return requireRosterAgent(inbox, account);
	return requireConversationAccess(inbox, account, conversationId as string);
}

/**
 * The conversation a request acts on: the route's `[conversationId]`, or for the proxy the first id of
 * the `/v1` path or the `conversationId` of the JSON body. An id that cannot exist is `404 NOT_FOUND`; a
 * body that names none is `400 INVALID_REQUEST`, before anything is forwarded.
 */
async function conversationOf(event: GateEvent, proxied: AllowedRequest | undefined): Promise<string> {
	let conversationId: unknown;
	if (!proxied) conversationId = event.params.conversationId;
	else if (proxied.rule.conversation === 'path') conversationId = proxied.params[0];
	else {
		const bytes = await readBodyBytes(event.request.clone(), proxied.definition.maxBody);
		conversationId = parseJsonObject(decodeUtf8(bytes)).conversationId;
		if (!isId(conversationId)) throw new ContractError('INVALID_REQUEST', 'conversationId must name the conversation');
	}
	if (!isId(conversationId))
		throw new ContractError('NOT_FOUND', `no conversation ${JSON.stringify(String(conversationId).slice(0, 140))}`);
	return conversationId;
}
