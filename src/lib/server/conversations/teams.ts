/**
 * Teams (docs/inbox-api.md §4 "Teams"): named groups of agents, e.g. "Billing", that admins make,
 * rename, staff and delete; anyone with access to a conversation gives it to a team or takes it from
 * one, beside its assignee. A team grants no access: a member reads only what is sealed for their key.
 * Every change reaches every open inbox: `teams.changed` for the list of teams, `conversation.changed`
 * for a conversation's; each admin change is a line of the audit log.
 */
import { randomBytes } from 'node:crypto';
import { ContractError } from '../../errors';
import { b64uEncode } from '../../crypto/encoding';
import type { Team } from '../../inbox-api/records';
import type { Account } from '../db/accounts';
import { recordActivityLine } from '../db/conversation-activity';
import type { Queryable } from '../db/database';
import { uniquely } from '../db/errors';
import { appendLiveEvent, appendLiveEvents } from '../db/live-events';
import type { StoreDeps } from '../deps';
import { recordAudit } from '../audit/record';
import { parseShortName } from './labels';

export const MAX_TEAMS = 50;
export const MAX_TEAM_MEMBERS = 500;
const NAME_TAKEN = 'another team has this name';

export async function listTeams(db: Queryable): Promise<Team[]> {
	const rows = await db.query<{ team_id: string; name: string; member_ids: string[] }>(
		`select t.team_id, t.name,
		        coalesce((select jsonb_agg(m.account_id order by m.account_id) from team_members m where m.team_id = t.team_id), '[]'::jsonb)
		          as member_ids
		 from teams t order by lower(t.name), t.team_id`
	);
	return rows.map((row) => ({ teamId: row.team_id, name: row.name, memberIds: row.member_ids }));
}

export type TeamFields = Pick<Team, 'name' | 'memberIds'>;

/** A team's name and members from an admin's body; either may be left out when `partial`. */
export function parseTeamFields(body: Record<string, unknown>, partial: boolean): Partial<TeamFields> {
	const fields: Partial<TeamFields> = {};
	if (body.name !== undefined || !partial) fields.name = parseShortName(body.name);
	if (body.memberIds !== undefined || !partial) {
		const ids = body.memberIds;
		if (!Array.isArray(ids) || ids.length > MAX_TEAM_MEMBERS || !ids.every((id) => typeof id === 'string' && id.length <= 100))
			throw new ContractError('INVALID_REQUEST', `memberIds must be a list of at most ${MAX_TEAM_MEMBERS} account ids`);
		fields.memberIds = [...new Set(ids as string[])].sort();
	}
	return fields;
}

/** Sets the team's members to exactly `memberIds`: enabled accounts only (`400 INVALID_REQUEST` otherwise). */
async function staff(tx: Queryable, teamId: string, memberIds: readonly string[]): Promise<void> {
	const known = await tx.query<{ account_id: string }>(
		'select account_id from accounts where account_id = any($1::text[]) and disabled_at is null',
		[memberIds]
	);
	if (known.length !== memberIds.length)
		throw new ContractError('INVALID_REQUEST', 'memberIds names an account that does not exist or is disabled');
	await tx.query('delete from team_members where team_id = $1 and account_id <> all($2::text[])', [teamId, memberIds]);
	await tx.query('insert into team_members (team_id, account_id) select $1, unnest($2::text[]) on conflict do nothing', [
		teamId,
		memberIds
	]);
}

function auditDetails(team: Partial<TeamFields>): Record<string, string | number> {
	return {
		...(team.name !== undefined ? { name: team.name } : {}),
		...(team.memberIds !== undefined ? { members: team.memberIds.join(',') } : {})
	};
}

export async function createTeam(deps: StoreDeps, actor: Account, fields: TeamFields): Promise<Team> {
	const now = new Date(deps.now());
	return uniquely(NAME_TAKEN, () =>
		deps.db.transaction(async (tx) => {
			// two admins creating the last team allowed at once: the second counts once the first committed
			await tx.query('lock table teams in share row exclusive mode');
			const [{ n }] = await tx.query<{ n: number }>('select count(*)::int as n from teams');
			if (n >= MAX_TEAMS) throw new ContractError('STATE_CONFLICT', `a company has at most ${MAX_TEAMS} teams`);
			const team: Team = { teamId: `team_${b64uEncode(randomBytes(9))}`, ...fields };
			await tx.query('insert into teams (team_id, name, created_at) values ($1, $2, $3)', [team.teamId, team.name, now]);
			await staff(tx, team.teamId, team.memberIds);
			await recordAudit(tx, { actor, action: 'team.created', target: team.teamId, details: auditDetails(fields) }, now);
			await appendLiveEvent(tx, 'teams.changed', null, {}, now);
			return team;
		})
	);
}

export async function updateTeam(deps: StoreDeps, actor: Account, teamId: string, fields: Partial<TeamFields>): Promise<void> {
	const now = new Date(deps.now());
	await uniquely(NAME_TAKEN, () =>
		deps.db.transaction(async (tx) => {
			const rows = await tx.query('update teams set name = coalesce($2, name) where team_id = $1 returning team_id', [
				teamId,
				fields.name ?? null
			]);
			if (rows.length === 0) throw new ContractError('NOT_FOUND', `no team ${teamId}`);
			if (fields.memberIds) await staff(tx, teamId, fields.memberIds);
			await recordAudit(tx, { actor, action: 'team.changed', target: teamId, details: auditDetails(fields) }, now);
			await appendLiveEvent(tx, 'teams.changed', null, {}, now);
			// a renamed team's conversations show the new name in every open list
			if (fields.name !== undefined) await changedConversationsOf(tx, teamId, now);
		})
	);
}

/** Deletes a team: its conversations keep their assignee and have no team. */
export async function deleteTeam(deps: StoreDeps, actor: Account, teamId: string): Promise<void> {
	const now = new Date(deps.now());
	await deps.db.transaction(async (tx) => {
		const [team] = await tx.query<{ name: string }>('select name from teams where team_id = $1 for update', [teamId]);
		if (!team) throw new ContractError('NOT_FOUND', `no team ${teamId}`);
		await changedConversationsOf(tx, teamId, now);
		await tx.query('delete from teams where team_id = $1', [teamId]);
		await recordAudit(tx, { actor, action: 'team.deleted', target: teamId, details: { name: team.name } }, now);
		await appendLiveEvent(tx, 'teams.changed', null, {}, now);
	});
}

async function changedConversationsOf(tx: Queryable, teamId: string, now: Date): Promise<void> {
	const conversations = await tx.query<{ conversation_id: string }>('select conversation_id from conversations where team_id = $1', [
		teamId
	]);
	await appendLiveEvents(
		tx,
		conversations.map(({ conversation_id }) => ({
			type: 'conversation.changed',
			conversationId: conversation_id,
			payload: { conversationId: conversation_id }
		})),
		now
	);
}

/**
 * Gives the conversation to the team `teamId` (null: to none). The caller has access to it (the gate's
 * `conversationAgent`); the team must exist (`400 INVALID_REQUEST`). A change is a line of the
 * conversation's activity; giving it to the team it has changes nothing.
 */
export async function setConversationTeam(deps: StoreDeps, actor: Account, conversationId: string, teamId: unknown): Promise<void> {
	if (teamId !== null && typeof teamId !== 'string') throw new ContractError('INVALID_REQUEST', 'teamId must be a team id or null');
	const now = new Date(deps.now());
	await deps.db.transaction(async (tx) => {
		const [row] = await tx.query<{ team_id: string | null; team_name: string | null }>(
			`select c.team_id, t.name as team_name from conversations c left join teams t on t.team_id = c.team_id
			 where c.conversation_id = $1 for update of c`,
			[conversationId]
		);
		if (!row) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
		if (row.team_id === teamId) return;
		const [team] = teamId === null ? [] : await tx.query<{ name: string }>('select name from teams where team_id = $1', [teamId]);
		if (teamId !== null && !team) throw new ContractError('INVALID_REQUEST', `no team ${teamId}`);
		await tx.query('update conversations set team_id = $2, updated_at = $3 where conversation_id = $1', [conversationId, teamId, now]);
		await recordActivityLine(
			tx,
			team
				? { conversationId, kind: 'team_assigned', actor, details: { teamName: team.name } }
				: { conversationId, kind: 'team_unassigned', actor, details: row.team_name ? { teamName: row.team_name } : {} },
			now
		);
		await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
	});
}
