/** Received webhook events and their processing state (contract 5.2). */
import { getReceivedEvents } from '$lib/server/api/admin-operations';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getReceivedEvents;
export const fallback = methodNotAllowed;
