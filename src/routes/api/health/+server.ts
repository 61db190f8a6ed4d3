/** Whether the inbox can serve (docs/inbox-api.md §9). */
import { getHealth } from '$lib/server/api/health';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getHealth;
export const fallback = methodNotAllowed;
