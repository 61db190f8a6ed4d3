/** Live updates as server-sent events (docs/inbox-api.md §7). */
import { getEvents } from '$lib/server/api/events';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getEvents;
export const fallback = methodNotAllowed;
