/** Resuming a failed grant job (docs/inbox-api.md "Administration"). */
import { resumeGrantJob } from '$lib/server/api/admin-roster';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = resumeGrantJob;
export const fallback = methodNotAllowed;
