/** Admins rename, recolour and delete labels (docs/inbox-api.md §4 "Labels"). */
import { patchLabel, removeLabel } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const PATCH = patchLabel;
export const DELETE = removeLabel;
export const fallback = methodNotAllowed;
