/** `POST .../enable` of an agent's account (docs/inbox-api.md "Administration"). */
import { enableAgent } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = enableAgent;
export const fallback = methodNotAllowed;
