/**
 * Deliveries, received events, trust states and what each account spends of the caps, for admins
 * (docs/inbox-api.md "Administration").
 */
import { listDeliveries, listReceivedEvents, listTrust, retryDelivery } from '../admin/operations';
import type { UsageOverview } from '../../inbox-api/usage';
import { json, readJsonObject, BODY_LIMITS } from '../http/responses';
import { idempotencyKeyOf } from './conversations';
import { idParam, requireSession, route } from './event';

export const getDeliveries = route(async (event, inbox) => {
	requireSession(event);
	return json(await listDeliveries(inbox, event.url.searchParams));
});

export const postDeliveryRetry = route(async (event, inbox) => {
	requireSession(event);
	await readJsonObject(event.request, BODY_LIMITS.fields);
	return json(await retryDelivery(inbox, idParam(event, 'deliveryId'), idempotencyKeyOf(event.request)), 202);
});

export const getReceivedEvents = route(async (event, inbox) => {
	requireSession(event);
	return json(await listReceivedEvents(inbox, event.url.searchParams));
});

export const getTrust = route(async (event, inbox) => {
	requireSession(event);
	return json(await listTrust(inbox, event.url.searchParams));
});

/** Who used how much of the per-account caps, now (docs/inbox-api.md §1 "Caps"). */
export const getUsage = route(async (event, inbox) => {
	requireSession(event);
	const overview: UsageOverview = { caps: inbox.usage.caps, data: await inbox.usage.usage(new Date(inbox.now())) };
	return json(overview);
});
