/** Grant jobs (docs/inbox-api.md "Administration"). */
import { getGrantJobs } from '$lib/server/api/admin-roster';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getGrantJobs;
export const fallback = methodNotAllowed;
