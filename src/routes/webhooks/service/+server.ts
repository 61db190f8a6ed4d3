/** The service's webhooks (contract 5.2; docs/inbox-api.md §10). */
import { receiveWebhook } from '$lib/server/api/webhook';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = receiveWebhook;
export const fallback = methodNotAllowed;
