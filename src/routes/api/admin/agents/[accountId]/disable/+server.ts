/** `POST .../disable` of an agent's account (docs/inbox-api.md "Administration"). */
import { disableAgent } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = disableAgent;
export const fallback = methodNotAllowed;
