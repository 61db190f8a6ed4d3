/** Anything else under /api: a JSON 404 (docs/inbox-api.md §1). */
import { notFound } from '$lib/server/api/fallbacks';

export const fallback = notFound;
