/** A conversation's labels (docs/inbox-api.md §4 "Labels"). */
import { putConversationLabels } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const PUT = putConversationLabels;
export const fallback = methodNotAllowed;
