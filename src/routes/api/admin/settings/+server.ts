/** The team's settings (docs/inbox-api.md, "Settings"). */
import { getSettings, patchSettings } from '$lib/server/api/admin-settings';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getSettings;
export const PATCH: RequestHandler = patchSettings;
export const fallback = methodNotAllowed;
