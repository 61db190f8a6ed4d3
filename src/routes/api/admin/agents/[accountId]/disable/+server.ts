/** `POST .../disable` of an agent's account (docs/inbox-api.md "Administration"). */
import { disableAgent } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = disableAgent;
export const fallback = methodNotAllowed;
