/**
 * The route of the signing proxy (docs/inbox-api.md §6): session first, then everything else is the
 * proxy's (src/lib/server/proxy/).
 */
import { proxyRequest } from '../proxy/proxy';
import { requireSession, route } from './event';

const PREFIX = '/api/v1/';

export const proxy = route(async (event, inbox) => {
	const session = requireSession(event);
	// The raw path as the URL holds it (still percent-encoded), not the router's decoded parameter.
	const rest = event.url.pathname.startsWith(PREFIX) ? event.url.pathname.slice(PREFIX.length) : '';
	return proxyRequest(inbox, session, event.request, rest, event.url.searchParams);
});
