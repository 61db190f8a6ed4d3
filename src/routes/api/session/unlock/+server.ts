/** The session's unlock share (docs/inbox-api.md §2 "Unlock once per browser session"). */
import { dropUnlockShare, getUnlockShare, keepUnlockShare } from '$lib/server/api/session';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getUnlockShare;
export const PUT: RequestHandler = keepUnlockShare;
export const DELETE: RequestHandler = dropUnlockShare;
export const fallback = methodNotAllowed;
