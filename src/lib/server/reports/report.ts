/**
 * The team report of a range (docs/reports.md): the facts of facts.ts counted for the whole team, by
 * agent, by label, by team and by weekday and hour, in one statement, and the conversations as they are now.
 * A group is a dimension — how a fact finds its groups: a fact counts for the team its conversation is
 * given to now, as it counts for the labels on it now.
 */
import {
	FIRST_RESPONSE_BUCKETS,
	type CurrentFigures,
	type DurationFigure,
	type ReportFigures,
	type ReportRow,
	type TeamReport,
	type TimeOnlineRow
} from '../../inbox-api/reports';
import type { Database, Queryable } from '../db/database';
import { FIGURE_COLUMNS, HOUR, HOUR_OF_ZONE, RANGE_FROM, RANGE_TO, SCOPED_FACTS, WEEKDAY } from './facts';
import type { ReportRange } from './range';
import { targetsMet } from './targets-met';

/** Whose figures: the whole team, or one agent's own (what an agent may see). */
export type ReportScope = { agentId: string | null };

/** How the facts of `scoped s` find their groups: the group's key and name, and the join that leads there. */
const DIMENSIONS = {
	byAgent: { key: 's.agent_id', name: 'acc.display_name', from: 'scoped s join accounts acc on acc.account_id = s.agent_id' },
	byLabel: {
		key: 'l.label_id',
		name: 'lb.name',
		from: 'scoped s join conversation_labels l on l.conversation_id = s.conversation_id join labels lb on lb.label_id = l.label_id'
	},
	byTeam: {
		key: 'tc.team_id',
		name: 'tm.name',
		from: 'scoped s join conversations tc on tc.conversation_id = s.conversation_id join teams tm on tm.team_id = tc.team_id'
	}
} as const;

type Dimension = keyof typeof DIMENSIONS;

interface FigureRow {
	dimension: 'overall' | 'heatmap' | Dimension;
	key: string | null;
	name: string | null;
	opened: number;
	resolved: number;
	reopened: number;
	messages_in: number;
	messages_out: number;
	first_responses: number;
	first_response_median: number | null;
	first_response_p90: number | null;
	resolution_median: number | null;
	resolution_p90: number | null;
	[bucket: `bucket_${number}`]: number;
}

const REPORT_SQL = `with ${SCOPED_FACTS}
select 'overall' as dimension, null::text as key, null::text as name, ${FIGURE_COLUMNS} from scoped
${Object.entries(DIMENSIONS)
	.map(
		([dimension, { key, name, from }]) =>
			`union all select '${dimension}', ${key}, min(${name}), ${FIGURE_COLUMNS} from ${from} group by ${key}`
	)
	.join('\n')}
union all select 'heatmap', ((${WEEKDAY} - 1) * 24 + ${HOUR})::text, null, ${FIGURE_COLUMNS}
	from (select 'message_in' as kind, null::float8 as seconds, count(*)::int as n, min(at) as at from incoming group by ${HOUR_OF_ZONE}) i
	group by 2`;

const CURRENT_SQL = `
select count(*)::int as open, count(*) filter (where c.assignee_id is null)::int as unassigned,
	count(*) filter (where ${waitingCondition('c')})::int as waiting
from conversations c where c.team_state = 'open' and ($1::text is null or c.assignee_id = $1::text)`;

/**
 * Each account's time online in `[$1, $2)` of the zone `$3` (docs/reports.md "Time online"): its
 * stretches cut to the range; `$4` the one account whose time counts (null: everyone's).
 */
const TIME_ONLINE_SQL = `
select key, name, seconds from (
	select s.account_id as key, min(a.display_name) as name,
		sum(extract(epoch from least(s.last_seen_at, ${RANGE_TO}) - greatest(s.started_at, ${RANGE_FROM})))::float8 as seconds
	from agent_online_spans s join accounts a on a.account_id = s.account_id
	where s.last_seen_at > ${RANGE_FROM} and s.started_at < ${RANGE_TO} and ($4::text is null or s.account_id = $4::text)
	group by s.account_id
) online where seconds > 0
order by name, key`;

/** Whether the last message of the conversation `alias` is the customer's. */
export function waitingCondition(alias: string): string {
	const last = (side: string, condition = '') =>
		`(select max(m.created_at) from conversation_messages m where m.conversation_id = ${alias}.conversation_id and m.sender_type = '${side}'${condition})`;
	// an away reply is no answer: the customer still waits for an agent (docs/service-targets.md "Away reply")
	const notAway = ` and not exists (select 1 from away_replies a where a.conversation_id = m.conversation_id and a.client_message_id = m.encryption ->> 'clientMessageId')`;
	return `${last('user')} > coalesce(${last('company', notAway)}, '-infinity'::timestamptz)`;
}

function duration(count: number, median: number | null, p90: number | null): DurationFigure {
	return { count, median: median === null ? null : Number(median), p90: p90 === null ? null : Number(p90) };
}

function figures(row: FigureRow): ReportFigures {
	return {
		opened: row.opened,
		resolved: row.resolved,
		reopened: row.reopened,
		messagesIn: row.messages_in,
		messagesOut: row.messages_out,
		firstResponse: duration(row.first_responses, row.first_response_median, row.first_response_p90),
		resolution: duration(row.resolved, row.resolution_median, row.resolution_p90),
		firstResponseBuckets: FIRST_RESPONSE_BUCKETS.map(({ bucket }, index) => ({ bucket, count: row[`bucket_${index}`] }))
	};
}

function rowsOf(rows: readonly FigureRow[], dimension: Dimension): ReportRow[] {
	return rows
		.filter((row) => row.dimension === dimension)
		.map((row) => ({ key: row.key!, name: row.name!, figures: figures(row) }))
		.sort((a, b) => a.name.localeCompare(b.name) || a.key.localeCompare(b.key));
}

function heatmapOf(rows: readonly FigureRow[]): number[][] {
	const heatmap = Array.from({ length: 7 }, () => Array<number>(24).fill(0));
	for (const row of rows.filter((entry) => entry.dimension === 'heatmap')) {
		const cell = Number(row.key);
		heatmap[Math.floor(cell / 24)][cell % 24] = row.messages_in;
	}
	return heatmap;
}

/** Conversations as they are now, of the scope's agent or the whole team. */
export async function currentFigures(db: Queryable, scope: ReportScope): Promise<CurrentFigures> {
	const [row] = await db.query<CurrentFigures>(CURRENT_SQL, [scope.agentId]);
	return row;
}

/**
 * The report of `range`: for an agent's scope, every figure is of their own facts and conversations.
 * Without JIT: compiling the statement's many aggregates costs more than it saves (docs/reports.md "Cost").
 */
export async function buildTeamReport(db: Database, range: ReportRange, scope: ReportScope): Promise<TeamReport> {
	const parameters = [range.from, range.to, range.timeZone, scope.agentId];
	const rows = await db.transaction(async (tx) => {
		await tx.query('set local jit = off');
		return tx.query<FigureRow>(REPORT_SQL, parameters);
	});
	const timeOnline = await db.query<TimeOnlineRow>(TIME_ONLINE_SQL, parameters);
	const targets = await targetsMet(db, range, scope.agentId);
	const byAgent = rowsOf(rows, 'byAgent');
	return {
		range: { from: range.from, to: range.to, timeZone: range.timeZone },
		scope: scope.agentId === null ? 'team' : 'self',
		overall: figures(rows.find((row) => row.dimension === 'overall')!),
		byAgent,
		byLabel: rowsOf(rows, 'byLabel'),
		byTeam: rowsOf(rows, 'byTeam'),
		heatmap: heatmapOf(rows),
		timeOnline: timeOnline.map((row) => ({ key: row.key, name: row.name, seconds: Number(row.seconds) })),
		current: await currentFigures(db, scope),
		serviceTargets: targets && {
			overall: targets.overall,
			byAgent: Object.entries(targets.byAgent)
				.map(([key, share]) => ({ key, name: byAgent.find((row) => row.key === key)?.name ?? key, ...share }))
				.sort((a, b) => a.name.localeCompare(b.name))
		}
	};
}
