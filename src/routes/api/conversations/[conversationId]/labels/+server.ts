/** A conversation's labels (docs/inbox-api.md §4 "Labels"). */
import { putConversationLabels } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putConversationLabels;
export const fallback = methodNotAllowed;
