/** Whether the inbox can serve (docs/inbox-api.md §9). */
import { getHealth } from '$lib/server/api/health';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getHealth;
export const fallback = methodNotAllowed;
