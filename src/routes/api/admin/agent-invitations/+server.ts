/** One-time links for new agents and admins (docs/inbox-api.md "Administration"). */
import { postAgentInvitation } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = postAgentInvitation;
export const fallback = methodNotAllowed;
