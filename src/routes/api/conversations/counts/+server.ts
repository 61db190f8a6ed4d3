/** The list's counts as the caller may see them (docs/inbox-api.md §4 "Counts"). */
import { countConversations } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = countConversations;
export const fallback = methodNotAllowed;
