/** An agent's confirmation of an unverified re-invitation (docs/inbox-api.md §4; contract 6.4). */
import { confirmRewrap } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = confirmRewrap;
export const fallback = methodNotAllowed;
