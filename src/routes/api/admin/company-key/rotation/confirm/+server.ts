/** Step 2 of a company key rotation: the signed statement promotes the pending pair (contract 6.6). */
import { postCompanyKeyRotationConfirm } from '$lib/server/api/admin-keys';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = postCompanyKeyRotationConfirm;
export const fallback = methodNotAllowed;
