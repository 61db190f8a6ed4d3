/** The team's labels (docs/inbox-api.md §4 "Labels"). */
import { getLabels } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getLabels;
export const fallback = methodNotAllowed;
