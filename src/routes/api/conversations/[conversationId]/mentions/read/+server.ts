/** The calling account opened the conversation: its mentions there are read (docs/inbox-api.md §4 "Mentions"). */
import { postMentionsRead } from '$lib/server/api/mentions';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postMentionsRead;
export const fallback = methodNotAllowed;
