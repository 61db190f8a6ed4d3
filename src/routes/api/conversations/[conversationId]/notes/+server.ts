/** The conversation's private notes, as ciphertext (docs/inbox-api.md §4 "Notes"). */
import { getNotes, postNote } from '$lib/server/api/private-records';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getNotes;
export const POST = postNote;
export const fallback = methodNotAllowed;
