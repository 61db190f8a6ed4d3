/** The public half of the company signing key, `signing.pub` (docs/inbox-api.md "Administration"). */
import { getSigningKey } from '$lib/server/api/admin-agents';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getSigningKey;
export const fallback = methodNotAllowed;
