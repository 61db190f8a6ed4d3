/** The company's teams of agents (docs/inbox-api.md §4 "Teams"). */
import { getTeams } from '$lib/server/api/teams';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getTeams;
export const fallback = methodNotAllowed;
