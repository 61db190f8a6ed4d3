/**
 * Server hooks: the inbox starts before the first request (configuration and key files checked, one
 * message per problem); the request's lines of the log get its route id, then its account once the gate
 * knows it (docs/operations.md "Logs"); `/api` requests pass the gate (api/gate.ts: origin, the signing
 * secret in the request line, the session, a small body limit without one, the body scan, then the access
 * table of api/access-policy.ts); every response gets the security headers. An unexpected error is a line
 * of the log, not SvelteKit's coloured text, and tells the client nothing.
 */
import type { Handle, HandleServerError, ServerInit } from '@sveltejs/kit';
import { dev } from '$app/environment';
import { passGate } from '$lib/server/api/gate';
import { asContractError } from '$lib/server/db/errors';
import { errorResponse } from '$lib/server/http/responses';
import { withSecurityHeaders } from '$lib/server/http/security-headers';
import { errorText, serverLogger } from '$lib/server/log';
import { currentRequest } from '$lib/server/request-context';
import { inbox, initRuntime } from '$lib/server/runtime';

export const init: ServerInit = async () => {
	await initRuntime(process.env, { defaultOrigin: dev ? 'http://localhost:5173' : undefined, durableStore: !dev });
};

export const handle: Handle = async ({ event, resolve }) => {
	const request = currentRequest();
	if (request) request.route = event.route.id;
	const secured = (response: Response) =>
		withSecurityHeaders(response, { path: event.url.pathname, storageOrigins: inbox().config.storageOrigins });
	if (event.url.pathname.startsWith('/api/')) {
		try {
			const pass = await passGate(inbox(), event);
			if (request) request.accountId = pass.session?.account.accountId;
			event.locals.session = pass.session;
			event.locals.gate = pass;
		} catch (error) {
			return secured(errorResponse(asContractError(error) ?? error));
		}
	}
	return secured(await resolve(event));
};

/** SvelteKit's unexpected errors (a 404 is not one: its request's line says it). */
export const handleError: HandleServerError = ({ error, status }) => {
	if (status >= 500) serverLogger.error('unexpected error', { status, reason: error instanceof Error ? error.stack : errorText(error) });
	return { message: 'Internal Error' };
};
