/** Admins rename, recolour and delete labels (docs/inbox-api.md §4 "Labels"). */
import { patchLabel, removeLabel } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PATCH: RequestHandler = patchLabel;
export const DELETE: RequestHandler = removeLabel;
export const fallback = methodNotAllowed;
