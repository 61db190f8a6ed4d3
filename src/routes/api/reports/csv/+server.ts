/** One table of a report as CSV (docs/reports.md "The API"). */
import { getReportCsv } from '$lib/server/api/reports';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = getReportCsv;
export const fallback = methodNotAllowed;
