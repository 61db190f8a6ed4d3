/**
 * The list's counts (docs/inbox-api.md §4 "Counts"): how many of the conversations the list holds are in
 * each of its views, as the list shows each to the account, from kept columns (the unread counts of
 * migration 33), in one statement, without reading a message; with the service-target views at the
 * moment of asking (docs/service-targets.md "In the inbox"), each open conversation's deadline measured
 * as the page measures its row's.
 */
import type { ConversationCounts, InboxSettings, TeamState } from '../../inbox-api/records';
import { dueState, serviceDue, targetPolicy, type TargetPolicy } from '../../service-targets/targets';
import type { ConversationStatus } from '../../wire/v1';
import type { Account } from './accounts';
import type { Queryable } from './database';
import {
	CLOCK_COLUMNS,
	clockTimesOf,
	IN_LATEST_ROSTER,
	LABEL_IDS,
	RESPONSE_FACTS_JOIN,
	UNREAD_MESSAGES,
	type ClockRow,
	type Trust
} from './conversations';
import { readSettings } from './settings';

/**
 * `$1`–`$3` the account, its key and public key; `$4` what it may read (`admin`: all; `agent`: what its
 * key of the latest roster is sealed for; anything else: nothing); `$5`, `$6` the list's filters; `$7`
 * whether to gather the clocks (the team has service targets). Every conversation the list holds counts
 * as the list shows it: its unread messages and labels only where the account may read it (elsewhere the
 * list shows none), its state, assignee, team and clock everywhere.
 */
export const COUNTS_SQL = `
with listed as materialized (
	select c.conversation_id, c.status, c.team_state, c.assignee_id, c.team_id, c.created_at, readable.yes as readable,
	       readable.yes and ${UNREAD_MESSAGES} > 0 as unread
	from conversations c
	left join agent_reads r on r.conversation_id = c.conversation_id and r.account_id = $1
	left join conversation_customer_messages customer on customer.conversation_id = c.conversation_id
	cross join lateral (select $4::text = 'admin'
	       or ($4::text = 'agent' and ${IN_LATEST_ROSTER}
	           and exists (select 1 from agent_wraps w where w.conversation_id = c.conversation_id and w.agent_key_id = $2)) as yes) readable
	where ($5::text is null or c.status = $5) and ($6::text is null or c.trust = $6)
)
select
	(select coalesce(jsonb_agg(g), '[]'::jsonb) from (
		select status, team_state, assignee_id, unread, count(*)::int as conversations
		from listed group by status, team_state, assignee_id, unread) g) as groups,
	(select coalesce(jsonb_object_agg(label_id, conversations), '{}'::jsonb) from (
		select l.label_id, count(*)::int as conversations from listed o join conversation_labels l on l.conversation_id = o.conversation_id
		where o.readable and o.status <> 'closed' and o.team_state = 'open' group by l.label_id) labelled) as labels,
	(select coalesce(jsonb_object_agg(team_id, conversations), '{}'::jsonb) from (
		select team_id, count(*)::int as conversations from listed
		where team_id is not null and status <> 'closed' and team_state = 'open' group by team_id) teamed) as teams,
	(select coalesce(json_agg(clock), '[]'::json) from (
		select ${CLOCK_COLUMNS}, case when c.readable then ${LABEL_IDS} else '[]'::jsonb end as labels
		from listed c ${RESPONSE_FACTS_JOIN}
		where $7::boolean and c.status <> 'closed' and c.team_state = 'open') clock) as clocks`;

interface CountGroup {
	status: ConversationStatus;
	team_state: TeamState;
	assignee_id: string | null;
	unread: boolean;
	conversations: number;
}

function emptyCounts(): ConversationCounts {
	const byStatus = () => ({ all: 0, active: 0, awaiting_key: 0, pending: 0, closed: 0 });
	return {
		total: byStatus(),
		unread: byStatus(),
		lifecycle: { open: 0, snoozed: 0, resolved: 0 },
		assignment: { mine: 0, unassigned: 0, all: 0, byAgent: {} },
		labels: {},
		teams: {},
		service: { breaching: 0, overdue: 0 }
	};
}

function addGroup(counts: ConversationCounts, group: CountGroup, myAccountId: string): void {
	const { conversations: n } = group;
	counts.total.all += n;
	counts.total[group.status] += n;
	if (group.unread) {
		counts.unread.all += n;
		counts.unread[group.status] += n;
	}
	counts.lifecycle[group.team_state] += n;
	if (group.status === 'closed' || group.team_state !== 'open') return;
	const { assignment } = counts;
	assignment.all += n;
	if (group.assignee_id === null) assignment.unassigned += n;
	else {
		assignment.byAgent[group.assignee_id] = (assignment.byAgent[group.assignee_id] ?? 0) + n;
		if (group.assignee_id === myAccountId) assignment.mine += n;
	}
}

/** An open conversation's clock, with its labels as the list shows them (none where the account may not read it). */
interface OpenClock extends ClockRow {
	labels: string[];
}

/** Adds the open conversation's share of the service-target views at `now`, as the page counts its row's. */
function addClock(counts: ConversationCounts, policy: TargetPolicy, clock: OpenClock, now: Date): void {
	const due = serviceDue(policy, { labels: clock.labels, teamState: 'open', ...clockTimesOf(clock) });
	const state = due && dueState(due, now.getTime());
	if (state && state !== 'onTrack') counts.service[state]++;
}

/** The policy of the settings last read, and what they were: kept while they stay the same. */
let lastPolicy: { of: string; policy: TargetPolicy | null } | undefined;

/**
 * The team's targets with their calendar, made again only when the settings changed: a calendar works
 * each day's opening hours out once, and the counts are asked often (every few seconds by each page
 * still loading its list). The settings are read at each call, so every process follows a change at once.
 */
function policyOf(settings: Pick<InboxSettings, 'serviceTargets' | 'businessHours'>): TargetPolicy | null {
	const of = JSON.stringify([settings.serviceTargets, settings.businessHours]);
	if (lastPolicy?.of !== of) lastPolicy = { of, policy: targetPolicy(settings.serviceTargets, settings.businessHours) };
	return lastPolicy.policy;
}

/** The counts of the list `account` gets with these filters at `now` (docs/inbox-api.md §4 "Counts"). */
export async function countConversationViews(
	db: Queryable,
	account: Account,
	filter: { status?: ConversationStatus; trust?: Trust },
	now: Date
): Promise<ConversationCounts> {
	const settings = await readSettings(db);
	const policy = policyOf(settings);
	const [row] = await db.query<{
		groups: CountGroup[];
		labels: Record<string, number>;
		teams: Record<string, number>;
		clocks: OpenClock[];
	}>(COUNTS_SQL, [
		account.accountId,
		account.agentKeyId,
		account.agentPublicKey,
		account.disabledAt ? 'disabled' : account.role,
		filter.status ?? null,
		filter.trust ?? null,
		policy !== null
	]);
	const counts = emptyCounts();
	for (const group of row.groups) addGroup(counts, group, account.accountId);
	counts.labels = row.labels;
	counts.teams = row.teams;
	if (policy) for (const clock of row.clocks) addClock(counts, policy, clock, now);
	return counts;
}
