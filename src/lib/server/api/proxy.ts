/**
 * The route of the signing proxy (docs/inbox-api.md §6): the gate has matched the `/v1` route and
 * checked the caller (api/gate.ts); everything else is the proxy's (src/lib/server/proxy/).
 */
import { ContractError } from '../../errors';
import { proxyRequest } from '../proxy/proxy';
import { requireSession, route } from './event';

export const proxy = route(async (event, inbox) => {
	const session = requireSession(event);
	const allowed = event.locals.gate?.proxied;
	if (!allowed) throw new ContractError('ROUTE_NOT_ALLOWED', 'the gate did not match this request to a /v1 route');
	return proxyRequest(inbox, session, event.request, allowed);
});
