/** The roster: latest, history, next, and the upload of one signed in the page (contract 6.7). */
import { getRoster, postRoster } from '$lib/server/api/admin-roster';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getRoster;
export const POST: RequestHandler = postRoster;
export const fallback = methodNotAllowed;
