/** The team's settings (docs/inbox-api.md, "Settings"). */
import { getSettings, patchSettings } from '$lib/server/api/admin-settings';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getSettings;
export const PATCH = patchSettings;
export const fallback = methodNotAllowed;
