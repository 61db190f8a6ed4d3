/** One grant job (docs/inbox-api.md "Administration"). */
import { getOneGrantJob } from '$lib/server/api/admin-roster';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getOneGrantJob;
export const fallback = methodNotAllowed;
