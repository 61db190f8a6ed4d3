/**
 * The team's shared vocabulary (docs/inbox-api.md §4 "Labels", "Canned replies"): labels everyone puts on
 * conversations and admins manage; canned replies, the team's (admins) and each agent's own; the
 * service targets and business hours every agent's rows are measured against (docs/service-targets.md).
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { createCannedReply, deleteCannedReply, listCannedReplies } from '../canned-replies';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { createLabel, deleteLabel, listLabels, parseLabelFields, setConversationLabels, updateLabel } from '../conversations/labels';
import { requireConversationView } from '../db/conversations';
import { readSettings } from '../db/settings';
import { idParam, requireSession, answer, handle } from './event';
import type { Label } from '../../inbox-api/records';

export const getLabels = handle(API.listLabels, async (event, inbox) => {
	requireSession(event);
	return answer(API.listLabels, { data: await listLabels(inbox.db) });
});

export const getServiceTargets = handle(API.getServiceTargets, async (event, inbox) => {
	requireSession(event);
	const { businessHours, serviceTargets } = await readSettings(inbox.db);
	return answer(API.getServiceTargets, { businessHours, serviceTargets });
});

export const postLabel = handle(API.createLabel, async (event, inbox) => {
	requireSession(event);
	const fields = parseLabelFields(await readJsonObject(event.request, BODY_LIMITS.fields), false) as Pick<Label, 'name' | 'color'>;
	return answer(API.createLabel, await createLabel(inbox, fields), 201);
});

export const patchLabel = handle(API.updateLabel, async (event, inbox) => {
	requireSession(event);
	const labelId = idParam(event.params.labelId, 'labelId');
	await updateLabel(inbox, labelId, parseLabelFields(await readJsonObject(event.request, BODY_LIMITS.fields), true));
	return answer(API.updateLabel, { data: await listLabels(inbox.db) });
});

export const removeLabel = handle(API.deleteLabel, async (event, inbox) => {
	requireSession(event);
	await deleteLabel(inbox, idParam(event.params.labelId, 'labelId'));
	return answer(API.deleteLabel, undefined);
});

export const putConversationLabels = handle(API.setConversationLabels, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	const { labelIds } = await readJsonObject(event.request, BODY_LIMITS.form);
	await setConversationLabels(inbox, account, conversationId, labelIds);
	return answer(API.setConversationLabels, await requireConversationView(inbox.db, account, conversationId));
});

export const getCannedReplies = handle(API.listCannedReplies, async (event, inbox) => {
	const { account } = requireSession(event);
	return answer(API.listCannedReplies, { data: await listCannedReplies(inbox.db, account) });
});

export const postCannedReply = handle(API.createCannedReply, async (event, inbox) => {
	const { account } = requireSession(event);
	return answer(
		API.createCannedReply,
		await createCannedReply(inbox.db, account, await readJsonObject(event.request, BODY_LIMITS.text), new Date(inbox.now())),
		201
	);
});

export const removeCannedReply = handle(API.deleteCannedReply, async (event, inbox) => {
	const { account } = requireSession(event);
	await deleteCannedReply(inbox.db, account, idParam(event.params.replyId, 'replyId'));
	return answer(API.deleteCannedReply, undefined);
});
