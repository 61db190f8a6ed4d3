/**
 * The facts of a report's range, as SQL (docs/reports.md "What each figure means"): what happened — a
 * conversation opened, resolved or reopened, a customer message in, an agent's reply out, a first
 * response — with its conversation, the agent it counts for and, for durations, its seconds. Read from
 * times, sides, authors, activity lines and assignees only: no envelope is opened.
 *
 * Parameters: $1 the first day and $2 the day after the last (`YYYY-MM-DD`), $3 the IANA time zone
 * they are days of, $4 the one agent whose facts count (null: the whole team).
 */
import { FIRST_RESPONSE_BUCKETS, type RangeFigure } from '../../inbox-api/reports';

/** The range's first instant and the instant after it, from the parameters above. */
export const RANGE_FROM = `($1::timestamp at time zone $3::text)`;
export const RANGE_TO = `($2::timestamp at time zone $3::text)`;

const inRange = (column: string) => `${column} >= ${RANGE_FROM} and ${column} < ${RANGE_TO}`;

/** The `kind` of the facts behind each figure of the range. */
export const FACT_KIND: Readonly<Record<RangeFigure, string>> = {
	opened: 'opened',
	resolved: 'resolved',
	reopened: 'reopened',
	messagesIn: 'message_in',
	messagesOut: 'message_out',
	firstResponse: 'first_response',
	resolution: 'resolved'
};

/**
 * The reply that answers a conversation's first customer message: the first reply an agent sent at or
 * after it, by the time its author was recorded, as the server keeps it (db/response-facts.ts).
 */
const FIRST_RESPONSES = `
first_responses as (
	select conversation_id, first_reply_account_id as account_id, first_reply_at as created_at,
		extract(epoch from first_reply_at - first_in_at)::float8 as seconds
	from conversation_response_facts where ${inRange('first_reply_at')}
)`;

/**
 * `with` clauses ending in `scoped (kind, conversation_id, agent_id, at, seconds, n)`: `n` facts of a
 * kind in one row (a conversation's messages in, an agent's replies in a conversation: `at` the latest),
 * and `incoming` (conversation_id, at), each customer message in the scope. An activity line counts for
 * its actor; one without an actor (a customer's message reopened it) for the assignee; a message in and
 * an opened conversation for the conversation's assignee now; a reply for its author. A conversation's
 * messages in are counted before their conversation is looked up, once per conversation; the two
 * readers of `incoming` (those counts and the heatmap) each read the index rather than a copy of it.
 */
export const SCOPED_FACTS = `
replies as (select conversation_id, account_id, created_at from message_authors where ${inRange('created_at')}),
incoming as not materialized (
	select m.conversation_id, m.created_at as at from conversation_messages m
	where m.sender_type = 'user' and ${inRange('m.created_at')}
		and ($4::text is null or m.conversation_id in (select conversation_id from conversations where assignee_id = $4::text))
),
${FIRST_RESPONSES},
facts as (
	select 'opened' as kind, c.conversation_id, c.assignee_id as agent_id, c.created_at as at, null::float8 as seconds, 1 as n
	from conversations c where ${inRange('c.created_at')}
	union all
	select a.kind, a.conversation_id, case when a.actor_name is null then c.assignee_id else a.actor_account_id end, a.created_at,
		case when a.kind = 'resolved' then extract(epoch from a.created_at - c.created_at)::float8 end, 1
	from conversation_activity a join conversations c on c.conversation_id = a.conversation_id
	where a.kind in ('resolved', 'reopened') and ${inRange('a.created_at')}
		and (a.kind = 'resolved' or coalesce(a.details ->> 'reason', '') <> 'snooze_ended')
	union all
	select 'message_in', i.conversation_id, c.assignee_id, i.at, null, i.n
	from (select conversation_id, max(at) as at, count(*)::int as n from incoming group by conversation_id) i
	left join conversations c on c.conversation_id = i.conversation_id
	union all
	select 'message_out', conversation_id, account_id, max(created_at), null, count(*)::int from replies group by conversation_id, account_id
	union all
	select 'first_response', conversation_id, account_id, created_at, seconds, 1 from first_responses
),
scoped as materialized (select * from facts where $4::text is null or agent_id = $4::text)`;

const percentile = (fraction: number, kind: string) =>
	`percentile_cont(${fraction}) within group (order by seconds) filter (where kind = '${kind}')`;

/** The bounds of each first-response bucket, as a condition on `seconds`. */
export function bucketCondition(index: number): string {
	const upper = FIRST_RESPONSE_BUCKETS[index + 1]?.fromSeconds;
	return `seconds >= ${FIRST_RESPONSE_BUCKETS[index].fromSeconds}${upper === undefined ? '' : ` and seconds < ${upper}`}`;
}

/** The figures of a group of `scoped` facts, as select columns. */
export const FIGURE_COLUMNS = [
	...['opened', 'resolved', 'reopened', 'message_in', 'message_out'].map(
		(kind) =>
			`coalesce(sum(n) filter (where kind = '${kind}'), 0)::int as ${kind === 'message_in' ? 'messages_in' : kind === 'message_out' ? 'messages_out' : kind}`
	),
	`count(*) filter (where kind = 'first_response')::int as first_responses`,
	`${percentile(0.5, 'first_response')} as first_response_median`,
	`${percentile(0.9, 'first_response')} as first_response_p90`,
	`${percentile(0.5, 'resolved')} as resolution_median`,
	`${percentile(0.9, 'resolved')} as resolution_p90`,
	...FIRST_RESPONSE_BUCKETS.map(
		(_, index) => `count(*) filter (where kind = 'first_response' and ${bucketCondition(index)})::int as bucket_${index}`
	)
].join(',\n\t');

/**
 * The hour of the range's time zone a customer message arrived in, as an instant: the heatmap counts
 * the messages of each hour first, then places the hours.
 */
export const HOUR_OF_ZONE = `date_trunc('hour', at, $3::text)`;

/** A customer message's weekday (1 = Monday) and hour in the range's time zone. */
export const WEEKDAY = `extract(isodow from at at time zone $3::text)::int`;
export const HOUR = `extract(hour from at at time zone $3::text)::int`;
