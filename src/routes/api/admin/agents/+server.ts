/** Agents for admins (docs/inbox-api.md "Administration"). */
import { getAgents } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getAgents;
export const fallback = methodNotAllowed;
