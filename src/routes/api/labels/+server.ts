/** The team's labels (docs/inbox-api.md §4 "Labels"). */
import { getLabels } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getLabels;
export const fallback = methodNotAllowed;
