/** Removing an agent's account (docs/inbox-api.md "Administration"). */
import { deleteAgent } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const DELETE = deleteAgent;
export const fallback = methodNotAllowed;
