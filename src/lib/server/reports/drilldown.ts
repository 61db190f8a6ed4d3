/**
 * The conversations behind one figure of a report (docs/reports.md "The API", `GET
 * /api/reports/conversations`): a bar of the chart clicked — an agent's resolved, a first-response
 * bucket, an hour of the heatmap, the open ones now — lists the conversations it counted, the latest
 * first, from the same facts as the figure.
 */
import { ContractError } from '../../errors';
import {
	CURRENT_FIGURES,
	FIRST_RESPONSE_BUCKETS,
	RANGE_FIGURES,
	type CurrentFigure,
	type FirstResponseBucket,
	type RangeFigure,
	type ReportConversationPage
} from '../../inbox-api/reports';
import type { Queryable } from '../db/database';
import { bucketCondition, FACT_KIND, HOUR, SCOPED_FACTS, WEEKDAY } from './facts';
import type { ReportRange } from './range';
import { waitingCondition, type ReportScope } from './report';

/** How many conversations one answer lists at most. */
export const DRILLDOWN_LIMIT = 500;

export interface FigureFilter {
	figure: RangeFigure | CurrentFigure;
	agentId?: string;
	labelId?: string;
	teamId?: string;
	bucket?: FirstResponseBucket;
	/** An hour of the heatmap: ISO weekday (1 = Monday) and hour, in the range's time zone. */
	cell?: { weekday: number; hour: number };
}

function integerIn(search: URLSearchParams, name: string, min: number, max: number): number | undefined {
	const value = search.get(name);
	if (value === null) return undefined;
	if (!/^\d{1,2}$/.test(value) || Number(value) < min || Number(value) > max)
		throw new ContractError('INVALID_REQUEST', `${name} must be an integer from ${min} to ${max}`);
	return Number(value);
}

function idIn(search: URLSearchParams, name: string): string | undefined {
	const value = search.get(name);
	if (value !== null && !/^[A-Za-z0-9_-]{1,128}$/.test(value)) throw new ContractError('INVALID_REQUEST', `${name} must be an id`);
	return value ?? undefined;
}

/** Reads `figure`, and `agent`, `label`, `team`, `bucket` (firstResponse), `weekday` and `hour` (messagesIn, both). */
export function parseFigureFilter(search: URLSearchParams): FigureFilter {
	const figure = search.get('figure') as FigureFilter['figure'];
	if (![...RANGE_FIGURES, ...CURRENT_FIGURES].includes(figure))
		throw new ContractError('INVALID_REQUEST', `figure must be one of ${[...RANGE_FIGURES, ...CURRENT_FIGURES].join(', ')}`);
	const bucket = search.get('bucket') ?? undefined;
	if (bucket !== undefined && (figure !== 'firstResponse' || !FIRST_RESPONSE_BUCKETS.some((entry) => entry.bucket === bucket)))
		throw new ContractError(
			'INVALID_REQUEST',
			`bucket goes with figure firstResponse: ${FIRST_RESPONSE_BUCKETS.map((entry) => entry.bucket).join(', ')}`
		);
	const weekday = integerIn(search, 'weekday', 1, 7);
	const hour = integerIn(search, 'hour', 0, 23);
	if ((weekday === undefined) !== (hour === undefined) || (weekday !== undefined && figure !== 'messagesIn'))
		throw new ContractError('INVALID_REQUEST', 'weekday and hour go together, with figure messagesIn');
	return {
		figure,
		agentId: idIn(search, 'agent'),
		labelId: idIn(search, 'label'),
		teamId: idIn(search, 'team'),
		bucket: bucket as FirstResponseBucket | undefined,
		cell: weekday === undefined ? undefined : { weekday, hour: hour! }
	};
}

/** Collects a statement's parameters: `add(value)` gives its `$n`. */
function parameters(initial: unknown[]) {
	const values = [...initial];
	return { values, add: (value: unknown) => `$${values.push(value)}` };
}

function rangeFigureSql(range: ReportRange, scope: ReportScope, filter: FigureFilter & { figure: RangeFigure }) {
	const { values, add } = parameters([range.from, range.to, range.timeZone, scope.agentId]);
	const where = [`s.kind = ${add(FACT_KIND[filter.figure])}`];
	if (filter.agentId) where.push(`s.agent_id = ${add(filter.agentId)}`);
	if (filter.bucket) where.push(bucketCondition(FIRST_RESPONSE_BUCKETS.findIndex((entry) => entry.bucket === filter.bucket)));
	if (filter.cell) where.push(`${WEEKDAY} = ${add(filter.cell.weekday)}::int and ${HOUR} = ${add(filter.cell.hour)}::int`);
	const label = filter.labelId
		? `join conversation_labels l on l.conversation_id = s.conversation_id and l.label_id = ${add(filter.labelId)}`
		: '';
	const team = filter.teamId
		? `join conversations tc on tc.conversation_id = s.conversation_id and tc.team_id = ${add(filter.teamId)}`
		: '';
	// an hour of the heatmap is one of each message's, which `scoped` counts by conversation
	const source = filter.cell
		? `(select i.*, c.assignee_id as agent_id, 'message_in' as kind, null::float8 as seconds
			from incoming i left join conversations c on c.conversation_id = i.conversation_id)`
		: 'scoped';
	const sql = `with ${SCOPED_FACTS}
		select s.conversation_id from ${source} s ${label} ${team} where ${where.join(' and ')}
		group by s.conversation_id order by max(s.at) desc, s.conversation_id limit ${add(DRILLDOWN_LIMIT + 1)}`;
	return { sql, values };
}

function currentFigureSql(scope: ReportScope, filter: FigureFilter & { figure: CurrentFigure }) {
	const { values, add } = parameters([]);
	const where = [`c.team_state = 'open'`];
	const agentId = scope.agentId ?? filter.agentId;
	if (agentId) where.push(`c.assignee_id = ${add(agentId)}`);
	if (filter.teamId) where.push(`c.team_id = ${add(filter.teamId)}`);
	if (filter.figure === 'unassigned') where.push('c.assignee_id is null');
	if (filter.figure === 'waiting') where.push(waitingCondition('c'));
	const label = filter.labelId
		? `join conversation_labels l on l.conversation_id = c.conversation_id and l.label_id = ${add(filter.labelId)}`
		: '';
	const sql = `select c.conversation_id from conversations c ${label} where ${where.join(' and ')}
		order by c.last_activity_at desc, c.conversation_id limit ${add(DRILLDOWN_LIMIT + 1)}`;
	return { sql, values };
}

function isCurrent(filter: FigureFilter): filter is FigureFilter & { figure: CurrentFigure } {
	return (CURRENT_FIGURES as readonly string[]).includes(filter.figure);
}

/** The conversations behind the figure, the latest first (for a figure of now: the latest activity first). */
export async function listReportConversations(
	db: Queryable,
	range: ReportRange,
	scope: ReportScope,
	filter: FigureFilter
): Promise<ReportConversationPage> {
	const { sql, values } = isCurrent(filter)
		? currentFigureSql(scope, filter)
		: rangeFigureSql(range, scope, filter as FigureFilter & { figure: RangeFigure });
	const rows = await db.query<{ conversation_id: string }>(sql, values);
	return { data: rows.slice(0, DRILLDOWN_LIMIT).map((row) => row.conversation_id), hasMore: rows.length > DRILLDOWN_LIMIT };
}
