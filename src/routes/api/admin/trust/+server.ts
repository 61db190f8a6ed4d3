/** The conversations' trust states (contract 6.3). */
import { getTrust } from '$lib/server/api/admin-operations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getTrust;
export const fallback = methodNotAllowed;
