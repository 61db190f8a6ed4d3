/** A profile written with the invitation, sealed until the customer joins (docs/private-records.md). */
import { putPendingProfile } from '$lib/server/api/private-records';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putPendingProfile;
export const fallback = methodNotAllowed;
