/** Step 1 of a company key rotation: the pending pair and the statement to sign (contract 6.6). */
import { postCompanyKeyRotation } from '$lib/server/api/admin-keys';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postCompanyKeyRotation;
export const fallback = methodNotAllowed;
