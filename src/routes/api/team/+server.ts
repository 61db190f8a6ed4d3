/** The team's names, for the assignment pickers (docs/inbox-api.md §4 "Team"). */
import { getTeam } from '$lib/server/api/accounts';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getTeam;
export const fallback = methodNotAllowed;
