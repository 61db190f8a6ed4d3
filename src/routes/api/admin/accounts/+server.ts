/** Accounts, for admins (docs/inbox-api.md §8). */
import { getAccounts, postAccount } from '$lib/server/api/accounts';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const GET = getAccounts;
export const POST = postAccount;
export const fallback = methodNotAllowed;
