/**
 * The team reports' routes (docs/reports.md "The API"): `GET /api/reports`, the conversations behind a
 * figure, and each table as CSV. The gate lets in admins and roster agents; an admin sees the whole
 * team, an agent only their own figures and conversations (docs/inbox-api.md §1 "Access").
 */
import { ContractError } from '../../errors';
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { REPORT_TABLES, type ReportTable } from '../../inbox-api/reports';
import type { Session } from '../auth/sessions';
import { parseFigureFilter, listReportConversations } from '../reports/drilldown';
import { reportTableCsv } from '../reports/csv';
import { parseReportRange } from '../reports/range';
import { buildTeamReport, type ReportScope } from '../reports/report';
import { answer, handle, requireSession } from './event';

const RANGE_PARAMETERS = ['from', 'to', 'tz'];

/** Refuses a parameter the route does not take, or one given twice. */
function onlyParameters(search: URLSearchParams, names: readonly string[]): URLSearchParams {
	for (const name of search.keys()) {
		if (!names.includes(name) || search.getAll(name).length > 1)
			throw new ContractError('INVALID_REQUEST', `unknown or repeated parameter ${name.slice(0, 64)}`);
	}
	return search;
}

/** An admin's reports are the team's; an agent's are of their own facts. */
function scopeOf(session: Session): ReportScope {
	return { agentId: session.account.role === 'admin' ? null : session.account.accountId };
}

export const getReport = handle(API.getReport, async (event, inbox) => {
	const session = requireSession(event);
	const range = parseReportRange(onlyParameters(event.url.searchParams, RANGE_PARAMETERS));
	return answer(API.getReport, await buildTeamReport(inbox.db, range, scopeOf(session)));
});

export const getReportConversations = handle(API.listReportConversations, async (event, inbox) => {
	const session = requireSession(event);
	const search = onlyParameters(event.url.searchParams, [
		...RANGE_PARAMETERS,
		'figure',
		'agent',
		'label',
		'team',
		'bucket',
		'weekday',
		'hour'
	]);
	const range = parseReportRange(search);
	const filter = parseFigureFilter(search);
	const scope = scopeOf(session);
	if (scope.agentId !== null && filter.agentId !== undefined && filter.agentId !== scope.agentId)
		throw new ContractError('FORBIDDEN', "an agent lists only their own conversations, not another agent's");
	return answer(API.listReportConversations, await listReportConversations(inbox.db, range, scope, filter));
});

export const getReportCsv = handle(API.getReportCsv, async (event, inbox) => {
	const session = requireSession(event);
	const search = onlyParameters(event.url.searchParams, [...RANGE_PARAMETERS, 'table']);
	const range = parseReportRange(search);
	const table = search.get('table') as ReportTable;
	if (!REPORT_TABLES.includes(table)) throw new ContractError('INVALID_REQUEST', `table must be one of ${REPORT_TABLES.join(', ')}`);
	const report = await buildTeamReport(inbox.db, range, scopeOf(session));
	return new Response(reportTableCsv(report, table), {
		headers: {
			'content-type': 'text/csv; charset=utf-8',
			'content-disposition': `attachment; filename="report-${table}-${range.from}-${range.to}.csv"`,
			'cache-control': 'no-store'
		}
	});
});
