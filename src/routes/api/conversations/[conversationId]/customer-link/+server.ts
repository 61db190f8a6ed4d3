/** Links the conversation to another one of the same customer (docs/inbox-api.md §4 "Customer profile"). */
import { putCustomerLink } from '$lib/server/api/conversations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const PUT: RequestHandler = putCustomerLink;
export const fallback = methodNotAllowed;
