/**
 * Deliveries, received events, trust states and what each account spends of the caps, for admins
 * (docs/inbox-api.md "Administration").
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { listDeliveries, listReceivedEvents, listTrust, retryDelivery } from '../admin/operations';
import type { UsageOverview } from '../../inbox-api/usage';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { idempotencyKeyOf } from './conversations';
import { idParam, requireSession, answer, handle } from './event';

export const getDeliveries = handle(API.listDeliveries, async (event, inbox) => {
	requireSession(event);
	return answer(API.listDeliveries, await listDeliveries(inbox, event.url.searchParams));
});

export const postDeliveryRetry = handle(API.retryDelivery, async (event, inbox) => {
	requireSession(event);
	await readJsonObject(event.request, BODY_LIMITS.fields);
	return answer(
		API.retryDelivery,
		await retryDelivery(inbox, idParam(event.params.deliveryId, 'deliveryId'), idempotencyKeyOf(event.request)),
		202
	);
});

export const getReceivedEvents = handle(API.listReceivedEvents, async (event, inbox) => {
	requireSession(event);
	return answer(API.listReceivedEvents, await listReceivedEvents(inbox, event.url.searchParams));
});

export const getTrust = handle(API.getTrust, async (event, inbox) => {
	requireSession(event);
	return answer(API.getTrust, await listTrust(inbox, event.url.searchParams));
});

/** Who used how much of the per-account caps, now (docs/inbox-api.md §1 "Caps"). */
export const getUsage = handle(API.getUsage, async (event, inbox) => {
	requireSession(event);
	const overview: UsageOverview = { caps: inbox.usage.caps, data: await inbox.usage.usage(new Date(inbox.now())) };
	return answer(API.getUsage, overview);
});
