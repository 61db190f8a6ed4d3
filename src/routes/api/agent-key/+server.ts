/** The agent's key registration (docs/inbox-api.md §3). */
import { putAgentKey } from '$lib/server/api/agent-key';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const PUT = putAgentKey;
export const fallback = methodNotAllowed;
