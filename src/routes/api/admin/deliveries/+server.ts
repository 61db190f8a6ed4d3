/** The service's webhook deliveries (contract-gaps §9). */
import { getDeliveries } from '$lib/server/api/admin-operations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getDeliveries;
export const fallback = methodNotAllowed;
