/** An agent's availability: away by choice, or idle-locked (docs/inbox-api.md §4 "Availability"). */
import { putAvailability } from '$lib/server/api/accounts';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putAvailability;
export const fallback = methodNotAllowed;
