/** Resolve, reopen or snooze a conversation (docs/inbox-api.md §4 "Lifecycle"). */
import { putTeamState } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putTeamState;
export const fallback = methodNotAllowed;
