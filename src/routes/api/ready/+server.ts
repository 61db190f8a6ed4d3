/** Whether a load balancer should send this process work (docs/operations.md "Readiness"). */
import { getReady } from '$lib/server/api/readiness';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getReady;
export const fallback = methodNotAllowed;
