/** The company key, its previous versions and a pending rotation (contract 6.6). */
import { getCompanyKey } from '$lib/server/api/admin-keys';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getCompanyKey;
export const fallback = methodNotAllowed;
