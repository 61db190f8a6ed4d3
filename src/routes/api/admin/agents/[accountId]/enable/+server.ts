/** `POST .../enable` of an agent's account (docs/inbox-api.md "Administration"). */
import { enableAgent } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = enableAgent;
export const fallback = methodNotAllowed;
