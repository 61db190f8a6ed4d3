/**
 * Whether an agent is there (docs/inbox-api.md §4 "Availability"): online, away (by their choice, or
 * because their page locked itself when idle) or offline (no tab of theirs keeps a live stream). The
 * pickers show it, and the round-robin gives work only to agents online. Shared by every process: the
 * choice and the idle mark are rows, the open tabs are `live_streams`.
 */
import { ContractError } from '../../errors';
import type { Availability } from '../../inbox-api/records';
import type { Database, Queryable } from '../db/database';
import { appendLiveEvent } from '../db/live-events';
import { STREAM_STALE_MS } from '../usage/caps';

/** SQL for the availability of the account `a` (joined with `agent_availability v`) at `$now`. */
export function availabilitySql(now: string): string {
	return `case
		when not exists (select 1 from live_streams s where s.account_id = a.account_id and s.seen_at > ${now}::timestamptz - interval '${STREAM_STALE_MS} milliseconds') then 'offline'
		when coalesce(v.away_by_choice or v.idle, false) then 'away'
		else 'online' end`;
}

/** The longest pause between two heartbeats of an online agent's streams over which their time online runs on. */
export const ONLINE_GAP_MS = STREAM_STALE_MS;
/** The lock one account's heartbeats take turns on (pg_advisory_xact_lock with the account's hash). */
const ONLINE_LOCK = 7_270_612;

/**
 * A live stream of the account's says at `now` that they are there (at its open and each heartbeat):
 * unless they are away or idle, their stretch online runs on to `now`, or a new one starts when the last
 * ended more than ONLINE_GAP_MS ago (docs/reports.md "Time online"). The heartbeats of several tabs and
 * processes take turns on a lock of the account, so the stretches never overlap.
 */
export async function recordOnline(db: Database, accountId: string, now: Date): Promise<void> {
	await db.transaction(async (tx) => {
		await tx.query('select pg_advisory_xact_lock($1, hashtext($2))', [ONLINE_LOCK, accountId]);
		const [state] = await tx.query<{ away: boolean }>(
			'select away_by_choice or idle as away from agent_availability where account_id = $1',
			[accountId]
		);
		if (state?.away) return;
		const extended = await tx.query(
			`update agent_online_spans set last_seen_at = greatest(last_seen_at, $2)
			 where account_id = $1 and started_at = (select max(started_at) from agent_online_spans where account_id = $1)
			   and last_seen_at >= $2::timestamptz - interval '${ONLINE_GAP_MS} milliseconds'
			 returning started_at`,
			[accountId, now]
		);
		if (extended.length === 0)
			await tx.query('insert into agent_online_spans (account_id, started_at, last_seen_at) values ($1, $2, $2) on conflict do nothing', [
				accountId,
				now
			]);
	});
}

/** Each enabled account's availability at `now`. */
export async function availabilities(db: Queryable, now: Date): Promise<Map<string, Availability>> {
	const rows = await db.query<{ account_id: string; availability: Availability }>(
		`select a.account_id, ${availabilitySql('$1')} as availability
		 from accounts a left join agent_availability v on v.account_id = a.account_id
		 where a.disabled_at is null`,
		[now]
	);
	return new Map(rows.map((row) => [row.account_id, row.availability]));
}

/** What an agent says of themselves: away by choice or not, idle-locked or not (either left as it is when absent). */
export interface AvailabilityChange {
	away?: boolean;
	idle?: boolean;
}

/** Checks a request's change: `away` and `idle`, each true or false, at least one, nothing else. */
export function parseAvailabilityChange(body: Record<string, unknown>): AvailabilityChange {
	const change: AvailabilityChange = {};
	for (const [name, value] of Object.entries(body)) {
		if (name !== 'away' && name !== 'idle') throw new ContractError('INVALID_REQUEST', `unknown field ${name.slice(0, 64)}`);
		if (typeof value !== 'boolean') throw new ContractError('INVALID_REQUEST', `${name} must be true or false`);
		change[name] = value;
	}
	if (Object.keys(change).length === 0) throw new ContractError('INVALID_REQUEST', 'say away or idle');
	return change;
}

/** Stores the change and tells every open inbox, whose pickers show it. */
export async function setAvailability(db: Database, accountId: string, change: AvailabilityChange, now: Date): Promise<void> {
	await db.transaction(async (tx) => {
		await tx.query(
			`insert into agent_availability (account_id, away_by_choice, idle, changed_at) values ($1, coalesce($2, false), coalesce($3, false), $4)
		 on conflict (account_id) do update set away_by_choice = coalesce($2, agent_availability.away_by_choice),
			idle = coalesce($3, agent_availability.idle), changed_at = $4`,
			[accountId, change.away ?? null, change.idle ?? null, now]
		);
		await appendLiveEvent(tx, 'team.changed', null, {}, now);
	});
}
