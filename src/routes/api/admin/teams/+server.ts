/** Admins make teams (docs/inbox-api.md §4 "Teams"). */
import { postTeam } from '$lib/server/api/teams';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postTeam;
export const fallback = methodNotAllowed;
