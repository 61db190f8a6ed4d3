/** The team's and the agent's own canned replies (docs/inbox-api.md §4 "Canned replies"). */
import { getCannedReplies, postCannedReply } from '$lib/server/api/team-vocabulary';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getCannedReplies;
export const POST = postCannedReply;
export const fallback = methodNotAllowed;
