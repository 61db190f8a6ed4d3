/**
 * Deliveries, received events and trust states for admins (docs/inbox-api.md "Administration").
 */
import { listDeliveries, listReceivedEvents, listTrust, retryDelivery } from '../admin/operations';
import { json, readJsonObject } from '../http/responses';
import { idempotencyKeyOf } from './conversations';
import { idParam, requireSession, route } from './event';

export const getDeliveries = route(async (event, inbox) => {
	requireSession(event, 'admin');
	return json(await listDeliveries(inbox, event.url.searchParams));
});

export const postDeliveryRetry = route(async (event, inbox) => {
	requireSession(event, 'admin');
	await readJsonObject(event.request, 4 * 1024);
	return json(await retryDelivery(inbox, idParam(event, 'deliveryId'), idempotencyKeyOf(event.request)), 202);
});

export const getReceivedEvents = route(async (event, inbox) => {
	requireSession(event, 'admin');
	return json(await listReceivedEvents(inbox, event.url.searchParams));
});

export const getTrust = route(async (event, inbox) => {
	requireSession(event, 'admin');
	return json(await listTrust(inbox, event.url.searchParams));
});
