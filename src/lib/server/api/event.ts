/**
 * What the inbox's route handlers need of a request (SvelteKit's RequestEvent has all of it), the
 * session the gate checked (docs/inbox-api.md §1), the wrapper that binds a handler to its endpoint's
 * declaration (src/lib/inbox-api/endpoints.ts) and turns any failure into the JSON error body, and the
 * answer typed by that declaration.
 */
import { ContractError } from '../../errors';
import { asContractError } from '../db/errors';
import { errorResponse, json } from '../http/responses';
import type { AnswerOf, Endpoint, ParamsOf } from '../../inbox-api/endpoints';
import type { Inbox } from '../inbox';
import { errorText } from '../log';
import { inbox } from '../runtime';
import type { Session } from '../auth/sessions';
import type { GatePass } from './gate';
import { ID_RULE } from '../../crypto/rules';

export interface CookieOptions {
	path: string;
	httpOnly?: boolean;
	secure?: boolean;
	sameSite?: 'strict' | 'lax' | 'none';
	expires?: Date;
	maxAge?: number;
}

/** A request to one route; `Params` are the names in its route id (its `+server.ts` passes SvelteKit's generated ones). */
export interface ApiEvent<Params extends Partial<Record<string, string>> = Partial<Record<string, string>>> {
	request: Request;
	url: URL;
	params: Params;
	locals: { session?: Session; gate?: GatePass };
	cookies: {
		get(name: string): string | undefined;
		set(name: string, value: string, options: CookieOptions): void;
		delete(name: string, options: CookieOptions): void;
	};
	getClientAddress(): string;
}

export type ApiHandler<Params extends Partial<Record<string, string>> = Partial<Record<string, string>>> = (
	event: ApiEvent<Params>,
	inbox: Inbox
) => Promise<Response>;

/** A route's handler, with the endpoint it answers (a spec checks each route file exports the one its route and method declare). */
export type EndpointHandler<E extends Endpoint> = ((event: ApiEvent<ParamsOf<E>>) => Promise<Response>) & { readonly endpoint: E };

/**
 * The caller's session, which the gate checked against the route's access level (api/access-policy.ts);
 * `401 UNAUTHENTICATED` when there is none (a route the table opens to anonymous callers).
 */
export function requireSession(event: ApiEvent): Session {
	const session = event.locals.session;
	if (!session) throw new ContractError('UNAUTHENTICATED', 'log in first');
	return session;
}

/** A route handler with the inbox and the error body (docs/inbox-api.md §1). */
export function route<Params extends Partial<Record<string, string>>>(
	handler: ApiHandler<Params>
): (event: ApiEvent<Params>) => Promise<Response> {
	return async (event) => {
		const current = inbox();
		try {
			return await handler(event, current);
		} catch (error) {
			const known = asContractError(error);
			if (!known) current.log.error('request failed', { method: event.request.method, path: event.url.pathname, reason: errorText(error) });
			else if (known.code === 'UNAVAILABLE')
				current.log.error('database unavailable', { path: event.url.pathname, reason: errorText(error) });
			return errorResponse(known ?? error);
		}
	};
}

/** The handler of one declared endpoint: its params typed by the endpoint's route id. */
export function handle<E extends Endpoint>(endpoint: E, handler: ApiHandler<ParamsOf<E>>): EndpointHandler<E> {
	return Object.assign(route(handler), { endpoint });
}

/** The endpoint's answer: its declared body as JSON (`204` without one), with the status given. */
export function answer<E extends Endpoint>(_endpoint: E, body: AnswerOf<E>, status = 200, headers: Record<string, string> = {}): Response {
	if (body === undefined) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store', ...headers } });
	return json(body, status, headers);
}

/** A path parameter that must be an id of the contract (1.1); `404 NOT_FOUND` otherwise, as nothing can have that id. */
export function idParam(value: string | undefined, name: string): string {
	const id = value ?? '';
	if (!ID_RULE.test(id)) throw new ContractError('NOT_FOUND', `no ${name} ${JSON.stringify(id.slice(0, 140))}`);
	return id;
}
