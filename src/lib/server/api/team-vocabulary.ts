/**
 * The team's shared vocabulary (docs/inbox-api.md §4 "Labels", "Canned replies"): labels everyone puts on
 * conversations and admins manage; canned replies, the team's (admins) and each agent's own.
 */
import { createCannedReply, deleteCannedReply, listCannedReplies } from '../canned-replies';
import { json, readJsonObject, BODY_LIMITS } from '../http/responses';
import { createLabel, deleteLabel, listLabels, parseLabelFields, setConversationLabels, updateLabel } from '../conversations/labels';
import { getConversationView } from '../db/conversations';
import { idParam, requireSession, route } from './event';
import type { Label } from '../../inbox-api/records';

export const getLabels = route(async (event, inbox) => {
	requireSession(event);
	return json({ data: await listLabels(inbox.db) });
});

export const postLabel = route(async (event, inbox) => {
	requireSession(event);
	const fields = parseLabelFields(await readJsonObject(event.request, BODY_LIMITS.fields), false) as Pick<Label, 'name' | 'color'>;
	return json(await createLabel(inbox, fields), 201);
});

export const patchLabel = route(async (event, inbox) => {
	requireSession(event);
	const labelId = idParam(event, 'labelId');
	await updateLabel(inbox, labelId, parseLabelFields(await readJsonObject(event.request, BODY_LIMITS.fields), true));
	return json({ data: await listLabels(inbox.db) });
});

export const removeLabel = route(async (event, inbox) => {
	requireSession(event);
	await deleteLabel(inbox, idParam(event, 'labelId'));
	return new Response(null, { status: 204 });
});

export const putConversationLabels = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const { labelIds } = await readJsonObject(event.request, BODY_LIMITS.form);
	await setConversationLabels(inbox, account, conversationId, labelIds);
	return json(await getConversationView(inbox.db, account, conversationId));
});

export const getCannedReplies = route(async (event, inbox) => {
	const { account } = requireSession(event);
	return json({ data: await listCannedReplies(inbox.db, account) });
});

export const postCannedReply = route(async (event, inbox) => {
	const { account } = requireSession(event);
	return json(
		await createCannedReply(inbox.db, account, await readJsonObject(event.request, BODY_LIMITS.text), new Date(inbox.now())),
		201
	);
});

export const removeCannedReply = route(async (event, inbox) => {
	const { account } = requireSession(event);
	await deleteCannedReply(inbox.db, account, idParam(event, 'replyId'));
	return new Response(null, { status: 204 });
});
