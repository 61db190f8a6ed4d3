/** One grant job (docs/inbox-api.md "Administration"). */
import { getOneGrantJob } from '$lib/server/api/admin-roster';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getOneGrantJob;
export const fallback = methodNotAllowed;
