/** Step 1 of a company key rotation: the pending pair and the statement to sign (contract 6.6). */
import { postCompanyKeyRotation } from '$lib/server/api/admin-keys';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const POST = postCompanyKeyRotation;
export const fallback = methodNotAllowed;
