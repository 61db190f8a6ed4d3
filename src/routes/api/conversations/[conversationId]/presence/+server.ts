/** Who else is viewing or typing in a conversation (docs/inbox-api.md §4 "Presence"). */
import { postPresence } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postPresence;
export const fallback = methodNotAllowed;
