/** Revokes a pending invitation link (docs/inbox-api.md "Administration"). */
import { deleteAgentInvitation } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const DELETE = deleteAgentInvitation;
export const fallback = methodNotAllowed;
