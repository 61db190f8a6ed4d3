/**
 * Server hooks: the inbox starts before the first request (configuration and key files checked, one
 * message per problem); `/api` requests get their session and, unless GET/HEAD, an origin check
 * (SvelteKit's own covers only form content types) and a scan that refuses the company's signing
 * secret in the body (http/secret-guard.ts); every response gets the security headers.
 */
import type { Handle, ServerInit } from '@sveltejs/kit';
import { dev } from '$app/environment';
import { ContractError } from '$lib/crypto/errors';
import { SESSION_COOKIE } from '$lib/server/auth/sessions';
import { asContractError } from '$lib/server/db/errors';
import { errorResponse } from '$lib/server/http/responses';
import { refuseSigningSecret } from '$lib/server/http/secret-guard';
import { withSecurityHeaders } from '$lib/server/http/security-headers';
import { inbox, initRuntime } from '$lib/server/runtime';

export const init: ServerInit = async () => {
	await initRuntime(process.env, { defaultOrigin: dev ? 'http://localhost:5173' : undefined });
};

const SAFE_METHODS = new Set(['GET', 'HEAD']);

export const handle: Handle = async ({ event, resolve }) => {
	const secured = (response: Response) =>
		withSecurityHeaders(response, { path: event.url.pathname, storageOrigins: inbox().config.storageOrigins });
	if (event.url.pathname.startsWith('/api/')) {
		const current = inbox();
		if (!SAFE_METHODS.has(event.request.method) && event.request.headers.get('origin') !== current.config.origin) {
			return secured(
				errorResponse(new ContractError('ORIGIN_REJECTED', `requests that change something must come from ${current.config.origin}`, 403))
			);
		}
		try {
			if (!SAFE_METHODS.has(event.request.method)) {
				await refuseSigningSecret(event.request, (await current.companyKeys()).signingPublicKey);
			}
			event.locals.session = await current.session(event.cookies.get(SESSION_COOKIE));
		} catch (error) {
			return secured(errorResponse(asContractError(error) ?? error));
		}
	}
	return secured(await resolve(event));
};
