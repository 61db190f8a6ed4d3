/** The conversations' trust states (contract 6.3). */
import { getTrust } from '$lib/server/api/admin-operations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getTrust;
export const fallback = methodNotAllowed;
