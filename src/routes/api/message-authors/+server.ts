/** Who sent the company's messages (docs/inbox-api.md §4 "Message authors"). */
import { postMessageAuthors } from '$lib/server/api/message-authors';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postMessageAuthors;
export const fallback = methodNotAllowed;
