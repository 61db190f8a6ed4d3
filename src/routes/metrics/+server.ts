/** The Prometheus metrics of this process, behind a bearer token (docs/operations.md "Metrics"). */
import { getMetrics } from '$lib/server/api/metrics';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getMetrics;
export const fallback = methodNotAllowed;
