/** `POST .../reset-key` of an agent's account (docs/inbox-api.md "Administration"). */
import { postResetKey } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = postResetKey;
export const fallback = methodNotAllowed;
