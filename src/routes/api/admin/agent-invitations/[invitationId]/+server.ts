/** Revokes a pending invitation link (docs/inbox-api.md "Administration"). */
import { deleteAgentInvitation } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const DELETE: RequestHandler = deleteAgentInvitation;
export const fallback = methodNotAllowed;
