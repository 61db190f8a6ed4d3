/** Joining through an agent invitation link (docs/inbox-api.md "Administration"). */
import { postJoin } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postJoin;
export const fallback = methodNotAllowed;
