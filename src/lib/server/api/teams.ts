/** Teams of agents over HTTP (docs/inbox-api.md §4 "Teams"); who may call each route is in access-policy.ts. */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import {
	createTeam,
	deleteTeam,
	listTeams,
	parseTeamFields,
	setConversationTeam,
	updateTeam,
	type TeamFields
} from '../conversations/teams';
import { requireConversationView } from '../db/conversations';
import { idParam, requireSession, answer, handle } from './event';

export const getTeams = handle(API.listTeams, async (event, inbox) => {
	requireSession(event);
	return answer(API.listTeams, { data: await listTeams(inbox.db) });
});

export const postTeam = handle(API.createTeam, async (event, inbox) => {
	const { account } = requireSession(event);
	const fields = parseTeamFields(await readJsonObject(event.request, BODY_LIMITS.list), false) as TeamFields;
	return answer(API.createTeam, await createTeam(inbox, account, fields), 201);
});

export const patchTeam = handle(API.updateTeam, async (event, inbox) => {
	const { account } = requireSession(event);
	const teamId = idParam(event.params.teamId, 'teamId');
	await updateTeam(inbox, account, teamId, parseTeamFields(await readJsonObject(event.request, BODY_LIMITS.list), true));
	// a conversation waiting for the team's members may have one online now
	inbox.roundRobin.trigger();
	return answer(API.updateTeam, { data: await listTeams(inbox.db) });
});

export const removeTeam = handle(API.deleteTeam, async (event, inbox) => {
	const { account } = requireSession(event);
	await deleteTeam(inbox, account, idParam(event.params.teamId, 'teamId'));
	// its conversations that waited for its members wait for anyone online now
	inbox.roundRobin.trigger();
	return answer(API.deleteTeam, undefined);
});

export const putConversationTeam = handle(API.setConversationTeam, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	const { teamId } = await readJsonObject(event.request, BODY_LIMITS.fields);
	await setConversationTeam(inbox, account, conversationId, teamId);
	// an unassigned conversation waiting for the round-robin now waits for the team's members
	inbox.roundRobin.trigger();
	return answer(API.setConversationTeam, await requireConversationView(inbox.db, account, conversationId));
});
