/** The signing proxy to the service's /v1, every method (docs/inbox-api.md §6). */
import { proxy } from '$lib/server/api/proxy';

export const fallback = proxy;
