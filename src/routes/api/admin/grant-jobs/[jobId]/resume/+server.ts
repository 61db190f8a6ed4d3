/** Resuming a failed grant job (docs/inbox-api.md "Administration"). */
import { resumeGrantJob } from '$lib/server/api/admin-roster';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = resumeGrantJob;
export const fallback = methodNotAllowed;
