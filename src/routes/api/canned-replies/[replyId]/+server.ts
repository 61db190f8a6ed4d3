/** Deletes a canned reply (docs/inbox-api.md §4 "Canned replies"). */
import { removeCannedReply } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const DELETE: RequestHandler = removeCannedReply;
export const fallback = methodNotAllowed;
