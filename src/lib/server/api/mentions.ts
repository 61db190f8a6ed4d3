/**
 * Mentions in private notes (docs/inbox-api.md §4 "Mentions"): whom a note may mention (the conversation's
 * readers), the conversations where the calling account was mentioned, and their read mark when it opens
 * one. The mentions themselves come with the note (private-records.ts).
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { listMentions, listReaders, readMentions } from '../conversations/mentions';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { idParam, requireSession, answer, handle } from './event';

export const getReaders = handle(API.listReaders, async (event, inbox) => {
	requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	return answer(API.listReaders, { data: await listReaders(inbox.db, conversationId, new Date(inbox.now())) });
});

export const getMentions = handle(API.listMentions, async (event, inbox) => {
	const { account } = requireSession(event);
	return answer(API.listMentions, { data: await listMentions(inbox.db, account) });
});

export const postMentionsRead = handle(API.readMentions, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	await readJsonObject(event.request, BODY_LIMITS.fields);
	await readMentions(inbox, account, conversationId);
	return answer(API.readMentions, undefined);
});
