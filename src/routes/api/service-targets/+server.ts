/** The team's business hours and service targets, for every agent's rows (docs/service-targets.md). */
import { getServiceTargets } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getServiceTargets;
export const fallback = methodNotAllowed;
