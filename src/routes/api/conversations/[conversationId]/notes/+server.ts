/** The conversation's private notes, as ciphertext (docs/inbox-api.md §4 "Notes"). */
import { getNotes, postNote } from '$lib/server/api/private-records';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getNotes;
export const POST: RequestHandler = postNote;
export const fallback = methodNotAllowed;
