/** The agent's key registration (docs/inbox-api.md §3). */
import { putAgentKey } from '$lib/server/api/agent-key';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putAgentKey;
export const fallback = methodNotAllowed;
