/** Grant jobs (docs/inbox-api.md "Administration"). */
import { getGrantJobs } from '$lib/server/api/admin-roster';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getGrantJobs;
export const fallback = methodNotAllowed;
