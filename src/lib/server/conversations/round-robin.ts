/**
 * Round-robin assignment (docs/inbox-api.md §4 "Assignment"): with the team's `roundRobin`, an open,
 * unassigned conversation whose customer wrote after its last assignment change goes to the agent whose
 * turn it is — online (availability.ts), able to read it, below the team's cap of open conversations, and
 * whose last automatic assignment is the oldest; a conversation given to a team (teams.ts) goes to one of the
 * team's members. Any process may run it at any time: each conversation is
 * decided in its own short transaction with its row locked (`for update skip locked`: decided once), and
 * the turn is taken under one transaction lock for the whole team, so processes deciding at once still
 * give the turns strictly in order (an agent skipped because another process held them would get less).
 */
import { getAccount } from '../db/accounts';
import type { Database, Queryable } from '../db/database';
import { readSettings } from '../db/settings';
import { inLatestRoster } from './access';
import { setAssignee } from './assignment';
import { availabilitySql } from './availability';

/**
 * The next conversation waiting, but those in `$1` (no agent could take them in this run): open and
 * unassigned, and the customer wrote after the last assignment change (an agent's unassigning stands
 * until then).
 */
const NEXT_WAITING = `
	select c.conversation_id, c.team_id, t.name as team_name from conversations c left join teams t on t.team_id = c.team_id
	where c.assignee_id is null and c.team_state = 'open' and c.status = 'active' and not (c.conversation_id = any($1::text[]))
	  and (select max(m.created_at) from conversation_messages m where m.conversation_id = c.conversation_id and m.sender_type = 'user')
	      > coalesce((select max(l.created_at) from conversation_activity l
	                  where l.conversation_id = c.conversation_id and l.kind in ('assigned', 'unassigned')), '-infinity')
	order by c.last_activity_at, c.conversation_id
	limit 1
	for update of c skip locked`;

/** The lock every process takes to give a turn (pg_advisory_xact_lock), released at commit. */
const TURN_LOCK = 7_270_611;

/** The agent whose turn it is for conversation `$1` at `$2`, under the cap `$3` (0: none), of the team `$4` (null: anyone). */
const NEXT_AGENT = `
	select a.account_id from accounts a join agent_availability v on v.account_id = a.account_id
	where a.role = 'agent' and a.disabled_at is null
	  and exists (select 1 from agent_wraps w where w.conversation_id = $1 and w.agent_key_id = a.agent_key_id)
	  and ${inLatestRoster('a.agent_key_id', 'a.agent_public_key')}
	  and ${availabilitySql('$2')} = 'online'
	  and ($4::text is null or exists (select 1 from team_members tm where tm.team_id = $4::text and tm.account_id = a.account_id))
	  and ($3 = 0 or (select count(*) from conversations o where o.assignee_id = a.account_id and o.team_state = 'open') < $3)
	order by v.last_turn nulls first, a.display_name, a.account_id
	limit 1`;

/** Gives the waiting conversations to agents in turn; returns how many were assigned. */
export async function assignWaiting(db: Database, now: Date): Promise<number> {
	const settings = await readSettings(db);
	if (!settings.roundRobin) return 0;
	await db.query(
		`insert into agent_availability (account_id, changed_at) select account_id, $1 from accounts where role = 'agent'
		 on conflict (account_id) do nothing`,
		[now]
	);
	const passedOver: string[] = [];
	let assigned = 0;
	for (;;) {
		const outcome = await db.transaction((tx) => assignNext(tx, passedOver, settings.roundRobinCap, now));
		if (outcome === 'none waiting') return assigned;
		if (outcome === 'assigned') assigned++;
	}
}

async function assignNext(
	tx: Queryable,
	passedOver: string[],
	cap: number,
	now: Date
): Promise<'assigned' | 'passed over' | 'none waiting'> {
	const [waiting] = await tx.query<{ conversation_id: string; team_id: string | null; team_name: string | null }>(NEXT_WAITING, [
		passedOver
	]);
	if (!waiting) return 'none waiting';
	await tx.query('select pg_advisory_xact_lock($1)', [TURN_LOCK]);
	const [next] = await tx.query<{ account_id: string }>(NEXT_AGENT, [waiting.conversation_id, now, cap, waiting.team_id]);
	const agent = next && (await getAccount(tx, next.account_id));
	if (!agent) {
		// nobody online can take it now: the next run (a customer's message, an agent coming online, the clock) looks again
		passedOver.push(waiting.conversation_id);
		return 'passed over';
	}
	await setAssignee(
		tx,
		waiting.conversation_id,
		{ actor: null, assignee: agent, automatic: 'round_robin', teamName: waiting.team_name ?? undefined, onlyIfUnassigned: true },
		now
	);
	await tx.query(`update agent_availability set last_turn = nextval('round_robin_turns') where account_id = $1`, [agent.accountId]);
	return 'assigned';
}
