/**
 * What the signing proxy forwards (docs/inbox-api.md §6): a method and path of the `/v1` route table
 * that the access table opens (api/access-policy.ts), its query parameters once each, and nothing that
 * could step out of `/v1` (dot segments, empty segments, encoded separators, absolute URLs).
 */
import { ContractError } from '../../errors';
import { matchV1Route, V1_ROUTES, type V1Route, type V1RouteName } from '../../wire/v1';
import { PROXY_ACCESS, type ProxyRule } from '../api/access-policy';

export interface AllowedRequest {
	route: V1RouteName;
	definition: V1Route;
	/** Who may call it (api/access-policy.ts). */
	rule: ProxyRule;
	params: string[];
	/** `/v1/...` with the query re-encoded canonically: exactly what is sent and signed. */
	pathAndQuery: string;
}

const MAX_QUERY_VALUE = 512;

/**
 * Checks `rest` (the raw path after `/api/v1/`) and the query: `400 INVALID_PATH` for path tricks,
 * `403 ROUTE_NOT_ALLOWED` for a route the proxy never forwards, `400 INVALID_REQUEST` for the query.
 * Whether the caller may use the route is the gate's to check, with the rule returned.
 */
export function allowRequest(method: string, rest: string, search: URLSearchParams): AllowedRequest {
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
	const rule = match && PROXY_ACCESS[match.name];
	if (!match || !rule) throw new ContractError('ROUTE_NOT_ALLOWED', `${method} ${path} is not forwarded by the proxy`);
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
	return { route: match.name, definition, rule, params: match.params, pathAndQuery: text ? `${path}?${text}` : path };
}
