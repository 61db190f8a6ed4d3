/** What each account spends of the per-account caps (docs/inbox-api.md §1 "Caps"). */
import { getUsage } from '$lib/server/api/admin-operations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getUsage;
export const fallback = methodNotAllowed;
