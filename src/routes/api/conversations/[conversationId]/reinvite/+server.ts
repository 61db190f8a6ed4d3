/** A re-invitation with its link, shown once (docs/inbox-api.md §5; contract 6.4). */
import { reinvite } from '$lib/server/api/invites';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = reinvite;
export const fallback = methodNotAllowed;
