/** Who sent the company's messages (docs/inbox-api.md §4 "Message authors"). */
import { postMessageAuthors } from '$lib/server/api/message-authors';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = postMessageAuthors;
export const fallback = methodNotAllowed;
