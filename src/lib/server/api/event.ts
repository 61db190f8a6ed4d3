/**
 * What the inbox's route handlers need of a request (SvelteKit's RequestEvent has all of it), the
 * session and role checks of docs/inbox-api.md §1, and the wrapper that turns any failure into the
 * JSON error body.
 */
import { ContractError } from '../../errors';
import { asContractError } from '../db/errors';
import { errorResponse } from '../http/responses';
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

export interface ApiEvent {
	request: Request;
	url: URL;
	params: Partial<Record<string, string>>;
	locals: { session?: Session; gate?: GatePass };
	cookies: {
		get(name: string): string | undefined;
		set(name: string, value: string, options: CookieOptions): void;
		delete(name: string, options: CookieOptions): void;
	};
	getClientAddress(): string;
}

export type ApiHandler = (event: ApiEvent, inbox: Inbox) => Promise<Response>;

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
export function route(handler: ApiHandler): (event: ApiEvent) => Promise<Response> {
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

/** A path parameter that must be an id of the contract (1.1); `404 NOT_FOUND` otherwise, as nothing can have that id. */
export function idParam(event: ApiEvent, name: string): string {
	const value = event.params[name] ?? '';
	if (!ID_RULE.test(value)) throw new ContractError('NOT_FOUND', `no ${name} ${JSON.stringify(value.slice(0, 140))}`);
	return value;
}
