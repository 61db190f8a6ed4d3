/** The conversation list as the caller sees it (docs/inbox-api.md §4). */
import { listConversations } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = listConversations;
export const fallback = methodNotAllowed;
