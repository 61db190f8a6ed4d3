/** Accounts, for admins (docs/inbox-api.md §8). */
import { getAccounts, postAccount } from '$lib/server/api/accounts';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getAccounts;
export const POST: RequestHandler = postAccount;
export const fallback = methodNotAllowed;
