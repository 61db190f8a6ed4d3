/** One-time links for new agents and admins (docs/inbox-api.md "Administration"). */
import { getAgentInvitations, postAgentInvitation } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getAgentInvitations;
export const POST: RequestHandler = postAgentInvitation;
export const fallback = methodNotAllowed;
