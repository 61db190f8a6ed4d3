/** The team report of a range (docs/reports.md "The API"). */
import { getReport } from '$lib/server/api/reports';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getReport;
export const fallback = methodNotAllowed;
