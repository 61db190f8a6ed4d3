/**
 * What the signing proxy lets each role call (docs/inbox-api.md §6): a method and path of the `/v1`
 * route table, its query parameters once each, and nothing that could step out of `/v1` (dot segments,
 * empty segments, encoded separators, absolute URLs).
 */
import { ContractError } from '../../errors';
import { matchV1Route, V1_ROUTES, type V1Route, type V1RouteName } from '../../wire/v1';
import type { Role } from '../db/accounts';

const AGENT_ROUTES: readonly V1RouteName[] = [
	'listConversations',
	'getConversation',
	'listMessages',
	'sendMessage',
	'markRead',
	'typing',
	'close',
	'createAttachmentUpload',
	'getAttachmentDownload',
	'reinvite'
];
// Rosters and agent wraps are uploaded by the server only (POST /api/admin/roster and its grant jobs),
// which always verifies a roster first: the proxy does not forward them.
const ADMIN_ROUTES: readonly V1RouteName[] = [...AGENT_ROUTES, 'createInvite', 'listAgentWraps', 'getRoster'];

export const ROLE_ROUTES: Record<Role, ReadonlySet<V1RouteName>> = { agent: new Set(AGENT_ROUTES), admin: new Set(ADMIN_ROUTES) };

export interface AllowedRequest {
	route: V1RouteName;
	definition: V1Route;
	params: string[];
	/** `/v1/...` with the query re-encoded canonically: exactly what is sent and signed. */
	pathAndQuery: string;
}

const MAX_QUERY_VALUE = 512;

/**
 * Checks `rest` (the raw path after `/api/v1/`) and the query for `role`: `400 INVALID_PATH` for path
 * tricks, `403 ROUTE_NOT_ALLOWED` for anything off the role's list, `400 INVALID_REQUEST` for the query.
 */
export function allowRequest(role: Role, method: string, rest: string, search: URLSearchParams): AllowedRequest {
	const segments = rest.split('/');
	if (
		rest.length > 1024 ||
		segments.some((segment) => segment === '' || segment === '.' || segment === '..') ||
		/[%\\:@]/.test(rest) ||
		/[^\x21-\x7e]/.test(rest)
	) {
		throw new ContractError('INVALID_PATH', 'the path must be plain segments of a /v1 route (no dots, empty or encoded segments, or URLs)');
	}
	const path = `/v1/${rest}`;
	const match = matchV1Route(method, path);
	if (!match || !ROLE_ROUTES[role].has(match.name)) {
		throw new ContractError(
			'ROUTE_NOT_ALLOWED',
			`${method} ${path} is not open to ${role === 'admin' ? 'admins' : 'agents'} through the proxy`
		);
	}
	const definition = V1_ROUTES[match.name];
	const query = new URLSearchParams();
	const seen = new Set<string>();
	for (const [name, value] of search) {
		if (!definition.query.includes(name)) throw new ContractError('INVALID_REQUEST', `${name} is not a query parameter of ${path}`);
		if (seen.has(name)) throw new ContractError('INVALID_REQUEST', `${name} appears more than once`);
		if (value.length > MAX_QUERY_VALUE || [...value].some((character) => character < ' ' || character === '\x7f'))
			throw new ContractError('INVALID_REQUEST', `${name} has an unusable value`);
		seen.add(name);
		query.append(name, value);
	}
	const text = query.toString();
	return { route: match.name, definition, params: match.params, pathAndQuery: text ? `${path}?${text}` : path };
}
