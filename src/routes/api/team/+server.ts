/** The team's names, for the assignment pickers (docs/inbox-api.md §4 "Team"). */
import { getTeam } from '$lib/server/api/accounts';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getTeam;
export const fallback = methodNotAllowed;
