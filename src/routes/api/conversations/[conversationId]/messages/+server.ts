/** The envelopes stored as received (docs/inbox-api.md §4). */
import { listMessages } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = listMessages;
export const fallback = methodNotAllowed;
