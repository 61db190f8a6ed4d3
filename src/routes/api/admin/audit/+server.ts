/** The audit log (docs/inbox-api.md, "Audit log"). */
import { getAudit } from '$lib/server/api/admin-audit';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getAudit;
export const fallback = methodNotAllowed;
