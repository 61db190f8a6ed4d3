/** A pending invitation's link again, or revoking it (docs/inbox-api.md §5). */
import { deleteInvite, getInvite } from '$lib/server/api/invites';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getInvite;
export const DELETE = deleteInvite;
export const fallback = methodNotAllowed;
