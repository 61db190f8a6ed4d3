/**
 * The team's state of a conversation (docs/inbox-api.md §4 "Lifecycle"), apart from the service's status:
 * `open` (work to do), `resolved` (done; Undo or Reopen opens it again), `snoozed` until a time, when it
 * opens again by itself — whichever process notices first, also after a restart. A customer's new
 * message opens a resolved or snoozed conversation again (webhooks/message-batch.ts, webhooks/handlers.ts);
 * an agent's reply to a resolved conversation leaves it resolved.
 */
import { ContractError } from '../../errors';
import type { TeamState } from '../../inbox-api/records';
import type { Account } from '../db/accounts';
import { recordActivityLine } from '../db/conversation-activity';
import type { Database, Queryable } from '../db/database';
import { errorText, type Logger } from '../log';
import { appendLiveEvent } from '../db/live-events';
import type { StoreDeps } from '../deps';

/** The longest snooze: a year. */
export const MAX_SNOOZE_MS = 366 * 24 * 3600_000;

export const TEAM_STATES: readonly TeamState[] = ['open', 'resolved', 'snoozed'];

/** Checks a change of an agent's request body: a known state, and for a snooze a time in the coming year. */
export function parseTeamStateChange(body: Record<string, unknown>, now: Date): { state: TeamState; snoozedUntil: Date | null } {
	const { state, snoozedUntil } = body;
	if (!TEAM_STATES.includes(state as TeamState))
		throw new ContractError('INVALID_REQUEST', `state must be one of ${TEAM_STATES.join(', ')}`);
	if (state !== 'snoozed') {
		if (snoozedUntil !== undefined) throw new ContractError('INVALID_REQUEST', 'snoozedUntil goes only with state snoozed');
		return { state: state as TeamState, snoozedUntil: null };
	}
	const until =
		typeof snoozedUntil === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(snoozedUntil)
			? new Date(snoozedUntil)
			: null;
	if (!until || Number.isNaN(until.getTime()) || until <= now || until.getTime() - now.getTime() > MAX_SNOOZE_MS) {
		throw new ContractError('INVALID_REQUEST', 'snoozedUntil must be a time with its zone, in the coming year');
	}
	return { state: 'snoozed', snoozedUntil: until };
}

/** Sets the team's state; nothing happens when it is already that (a snooze moves to the new time). */
export async function changeTeamState(
	deps: StoreDeps,
	actor: Account,
	conversationId: string,
	change: { state: TeamState; snoozedUntil: Date | null }
): Promise<void> {
	const now = new Date(deps.now());
	await deps.db.transaction(async (tx) => {
		const [row] = await tx.query<{ team_state: TeamState; snoozed_until: Date | null }>(
			'select team_state, snoozed_until from conversations where conversation_id = $1 for update',
			[conversationId]
		);
		if (!row) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
		const sameSnooze =
			// Stryker disable next-line ConditionalExpression: equivalent: without a stored end, new Date(null) is 1970, which no snooze asks for
			row.snoozed_until !== null && change.snoozedUntil !== null && new Date(row.snoozed_until).getTime() === change.snoozedUntil.getTime();
		if (row.team_state === change.state && (change.state !== 'snoozed' || sameSnooze)) return;
		await tx.query('update conversations set team_state = $2, snoozed_until = $3, updated_at = $4 where conversation_id = $1', [
			conversationId,
			change.state,
			change.snoozedUntil,
			now
		]);
		const kind = change.state === 'open' ? 'reopened' : change.state;
		await recordActivityLine(
			tx,
			{
				conversationId,
				kind,
				actor,
				// Stryker disable next-line Regex: equivalent: toISOString() has one .mmmZ, at its end
				details: change.snoozedUntil ? { until: change.snoozedUntil.toISOString().replace(/\.\d{3}Z$/, 'Z') } : {}
			},
			now
		);
		await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
	});
}

/** Conversations whose snooze has ended open again, each once whichever process gets there first; returns how many. */
export async function wakeSnoozed(db: Database, now: Date): Promise<number> {
	return db.transaction(async (tx) => {
		const rows = await tx.query<{ conversation_id: string }>(
			`with woken as (
				update conversations set team_state = 'open', snoozed_until = null, updated_at = $1
				where team_state = 'snoozed' and snoozed_until <= $1 returning conversation_id
			), lines as (
				insert into conversation_activity (conversation_id, kind, details, created_at)
				select conversation_id, 'reopened', '{"reason":"snooze_ended"}'::jsonb, $1 from woken
			)
			select conversation_id from woken`,
			[now]
		);
		for (const { conversation_id } of rows) {
			await appendLiveEvent(tx, 'conversation.changed', conversation_id, { conversationId: conversation_id }, now);
		}
		return rows.length;
	});
}

/** How often every process looks for snoozes that ended (and profiles written with an invitation to store). */
export const SNOOZE_CHECK_MS = 15_000;

/** Runs each task every SNOOZE_CHECK_MS until stopped; a failing task is logged and the others still run. */
export function startTeamClock(tasks: readonly (() => Promise<unknown>)[], log: Logger): { stop(): void } {
	const timer = setInterval(() => {
		for (const task of tasks) task().catch((error) => log.warn('a periodic team task failed', { reason: errorText(error) }));
	}, SNOOZE_CHECK_MS);
	timer.unref?.();
	return { stop: () => clearInterval(timer) };
}

/** A customer's messages open their resolved or snoozed conversations again (the handler path of message.created). */
export async function reopenOnCustomerMessages(tx: Queryable, conversationIds: readonly string[], now: Date): Promise<void> {
	if (conversationIds.length === 0) return;
	await tx.query(
		`with reopening as (
			select conversation_id, team_state from conversations where conversation_id = any($1::text[]) and team_state <> 'open' for update
		), lines as (
			insert into conversation_activity (conversation_id, kind, details, created_at)
			select conversation_id, 'reopened', jsonb_build_object('reason', 'customer_message', 'was', team_state), $2 from reopening
		)
		update conversations set team_state = 'open', snoozed_until = null where conversation_id in (select conversation_id from reopening)`,
		[conversationIds, now]
	);
}
