/** The conversations where a note mentioned the calling account, with their unread mentions (docs/inbox-api.md §4 "Mentions"). */
import { getMentions } from '$lib/server/api/mentions';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getMentions;
export const fallback = methodNotAllowed;
