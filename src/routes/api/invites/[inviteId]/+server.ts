/** A pending invitation's link again, or revoking it (docs/inbox-api.md §5). */
import { deleteInvite, getInvite } from '$lib/server/api/invites';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getInvite;
export const DELETE: RequestHandler = deleteInvite;
export const fallback = methodNotAllowed;
