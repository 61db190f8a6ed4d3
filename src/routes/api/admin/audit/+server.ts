/** The audit log (docs/inbox-api.md, "Audit log"). */
import { getAudit } from '$lib/server/api/admin-audit';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getAudit;
export const fallback = methodNotAllowed;
