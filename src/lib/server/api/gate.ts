/**
 * What every `/api` request passes before a route sees it (docs/inbox-api.md §1; docs/threat-model.md,
 * "An outsider"), cheapest first so that nobody without a session can make the server work hard:
 *  1. a change (not GET/HEAD) must come from the server's own origin;
 *  2. the path, query and headers must not carry the signing secret (short: cheap to scan);
 *  3. the session is resolved from the cookie;
 *  4. without a session, a body is at most PUBLIC_BODY_LIMIT bytes (login and joining need less), read
 *     before anything is derived from it: a flood of large unauthenticated bodies costs a read, no scan;
 *  5. the body must not carry the signing secret (scanned with a bounded number of key derivations).
 */
import { ContractError } from '../../errors';
import { SESSION_COOKIE, type Session } from '../auth/sessions';
import type { Inbox } from '../inbox';
import { readBodyBytes } from '../http/responses';
import { refuseSigningSecret, refuseSigningSecretInRequestLine } from '../http/secret-guard';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The largest body accepted before a session exists: the login and join forms are a few hundred bytes. */
export const PUBLIC_BODY_LIMIT = 16 * 1024;

export interface GateEvent {
	request: Request;
	url: URL;
	cookies: { get(name: string): string | undefined };
}

/** Passes the request through the checks above; throws a ContractError with the refusal. */
export async function passGate(inbox: Inbox, event: GateEvent): Promise<Session | undefined> {
	const changes = !SAFE_METHODS.has(event.request.method);
	if (changes && event.request.headers.get('origin') !== inbox.config.origin) {
		throw new ContractError('ORIGIN_REJECTED', `requests that change something must come from ${inbox.config.origin}`);
	}
	const { signingPublicKey } = await inbox.companyKeys();
	refuseSigningSecretInRequestLine(event.url, event.request.headers, signingPublicKey);
	const session = await inbox.session(event.cookies.get(SESSION_COOKIE));
	if (changes) {
		if (!session) await readBodyBytes(event.request.clone(), PUBLIC_BODY_LIMIT);
		await refuseSigningSecret(event.request, signingPublicKey);
	}
	return session;
}
