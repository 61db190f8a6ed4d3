/** One conversation as the caller sees it (docs/inbox-api.md §4). */
import { getConversation } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getConversation;
export const fallback = methodNotAllowed;
