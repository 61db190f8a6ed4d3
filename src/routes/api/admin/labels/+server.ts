/** Admins make labels (docs/inbox-api.md §4 "Labels"). */
import { postLabel } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postLabel;
export const fallback = methodNotAllowed;
