/** The conversations behind one figure of a report (docs/reports.md "The API"). */
import { getReportConversations } from '$lib/server/api/reports';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getReportConversations;
export const fallback = methodNotAllowed;
