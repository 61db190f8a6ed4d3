/** The customer's profile, as ciphertext (docs/inbox-api.md §4 "Customer profile"). */
import { putProfile } from '$lib/server/api/private-records';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putProfile;
export const fallback = methodNotAllowed;
