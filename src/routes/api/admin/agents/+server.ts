/** Agents for admins (docs/inbox-api.md "Administration"). */
import { getAgents } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getAgents;
export const fallback = methodNotAllowed;
