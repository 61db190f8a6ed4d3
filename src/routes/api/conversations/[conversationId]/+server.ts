/** One conversation as the caller sees it (docs/inbox-api.md §4). */
import { getConversation } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getConversation;
export const fallback = methodNotAllowed;
