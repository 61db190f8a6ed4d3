/** One-time links for new agents and admins (docs/inbox-api.md "Administration"). */
import { getAgentInvitations, postAgentInvitation } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getAgentInvitations;
export const POST = postAgentInvitation;
export const fallback = methodNotAllowed;
