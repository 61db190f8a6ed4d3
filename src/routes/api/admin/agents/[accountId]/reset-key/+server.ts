/** `POST .../reset-key` of an agent's account (docs/inbox-api.md "Administration"). */
import { postResetKey } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postResetKey;
export const fallback = methodNotAllowed;
