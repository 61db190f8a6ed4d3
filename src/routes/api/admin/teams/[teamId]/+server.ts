/** Admins rename, staff and delete teams (docs/inbox-api.md §4 "Teams"). */
import { patchTeam, removeTeam } from '$lib/server/api/teams';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PATCH: RequestHandler = patchTeam;
export const DELETE: RequestHandler = removeTeam;
export const fallback = methodNotAllowed;
