/** Links the conversation to another one of the same customer (docs/inbox-api.md §4 "Customer profile"). */
import { putCustomerLink } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';

export const PUT = putCustomerLink;
export const fallback = methodNotAllowed;
