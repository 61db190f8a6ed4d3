/** A new invitation with its link, and the pending ones (docs/inbox-api.md §5; contract 6.3). */
import { getInvites, postInvite } from '$lib/server/api/invites';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getInvites;
export const POST: RequestHandler = postInvite;
export const fallback = methodNotAllowed;
