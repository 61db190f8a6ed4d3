/** Who can read the conversation, by name: whom a note there may mention (docs/inbox-api.md §4 "Mentions"). */
import { getReaders } from '$lib/server/api/mentions';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getReaders;
export const fallback = methodNotAllowed;
