/** The team's and the agent's own canned replies (docs/inbox-api.md §4 "Canned replies"). */
import { getCannedReplies, postCannedReply } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getCannedReplies;
export const POST: RequestHandler = postCannedReply;
export const fallback = methodNotAllowed;
