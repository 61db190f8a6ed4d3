/** Who owns the conversation (docs/inbox-api.md §4 "Assignment"). */
import { putAssignee } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putAssignee;
export const fallback = methodNotAllowed;
