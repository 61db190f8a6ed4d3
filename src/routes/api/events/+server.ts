/** Live updates as server-sent events (docs/inbox-api.md §7). */
import { getEvents } from '$lib/server/api/events';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getEvents;
export const fallback = methodNotAllowed;
