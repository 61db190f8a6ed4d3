/** The conversation list as the caller sees it (docs/inbox-api.md §4). */
import { listConversations } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = listConversations;
export const fallback = methodNotAllowed;
