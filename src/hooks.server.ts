/**
 * Server hooks: the inbox starts before the first request (configuration and key files checked, one
 * message per problem); `/api` requests pass the gate (api/gate.ts: origin, the signing secret in the
 * request line, the session, a small body limit without one, the body scan, then the access table of
 * api/access-policy.ts); every response gets the security headers.
 */
import type { Handle, ServerInit } from '@sveltejs/kit';
import { dev } from '$app/environment';
import { passGate } from '$lib/server/api/gate';
import { asContractError } from '$lib/server/db/errors';
import { errorResponse } from '$lib/server/http/responses';
import { withSecurityHeaders } from '$lib/server/http/security-headers';
import { inbox, initRuntime } from '$lib/server/runtime';

export const init: ServerInit = async () => {
	await initRuntime(process.env, { defaultOrigin: dev ? 'http://localhost:5173' : undefined, durableStore: !dev });
};

export const handle: Handle = async ({ event, resolve }) => {
	const secured = (response: Response) =>
		withSecurityHeaders(response, { path: event.url.pathname, storageOrigins: inbox().config.storageOrigins });
	if (event.url.pathname.startsWith('/api/')) {
		try {
			const pass = await passGate(inbox(), event);
			event.locals.session = pass.session;
			event.locals.gate = pass;
		} catch (error) {
			return secured(errorResponse(asContractError(error) ?? error));
		}
	}
	return secured(await resolve(event));
};
