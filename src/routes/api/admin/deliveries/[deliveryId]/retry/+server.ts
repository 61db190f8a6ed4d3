/** The retry operation of a delivery (contract 4). */
import { postDeliveryRetry } from '$lib/server/api/admin-operations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postDeliveryRetry;
export const fallback = methodNotAllowed;
