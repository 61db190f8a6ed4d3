/** Login, session and logout (docs/inbox-api.md §2). */
import { currentSession, login, logout } from '$lib/server/api/session';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = currentSession;
export const POST: RequestHandler = login;
export const DELETE: RequestHandler = logout;
export const fallback = methodNotAllowed;
