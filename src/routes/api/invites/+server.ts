/** A new invitation with its link, shown once (docs/inbox-api.md §5; contract 6.3). */
import { postInvite } from '$lib/server/api/invites';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = postInvite;
export const fallback = methodNotAllowed;
