/** The service's webhooks (contract 5.2; docs/inbox-api.md §10). */
import { receiveWebhook } from '$lib/server/api/webhook';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = receiveWebhook;
export const fallback = methodNotAllowed;
