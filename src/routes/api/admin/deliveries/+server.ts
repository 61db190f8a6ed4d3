/** The service's webhook deliveries (contract-gaps §9). */
import { getDeliveries } from '$lib/server/api/admin-operations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getDeliveries;
export const fallback = methodNotAllowed;
