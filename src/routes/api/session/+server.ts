/** Login, session and logout (docs/inbox-api.md §2). */
import { currentSession, login, logout } from '$lib/server/api/session';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = currentSession;
export const POST = login;
export const DELETE = logout;
export const fallback = methodNotAllowed;
