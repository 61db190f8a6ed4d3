/** Webhook secret rotation with an overlap (contract 5.1 rule 4, 8). */
import { postWebhookSecretRotation } from '$lib/server/api/admin-keys';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postWebhookSecretRotation;
export const fallback = methodNotAllowed;
