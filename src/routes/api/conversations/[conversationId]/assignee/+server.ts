/** Who owns the conversation (docs/inbox-api.md §4 "Assignment"). */
import { putAssignee } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const PUT = putAssignee;
export const fallback = methodNotAllowed;
