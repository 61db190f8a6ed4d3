/** The team a conversation is given to (docs/inbox-api.md §4 "Teams"). */
import { putConversationTeam } from '$lib/server/api/teams';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putConversationTeam;
export const fallback = methodNotAllowed;
