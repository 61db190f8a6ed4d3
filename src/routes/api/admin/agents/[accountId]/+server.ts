/** Removing an agent's account (docs/inbox-api.md "Administration"). */
import { deleteAgent } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const DELETE: RequestHandler = deleteAgent;
export const fallback = methodNotAllowed;
