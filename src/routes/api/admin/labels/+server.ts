/** Admins make labels (docs/inbox-api.md §4 "Labels"). */
import { postLabel } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = postLabel;
export const fallback = methodNotAllowed;
