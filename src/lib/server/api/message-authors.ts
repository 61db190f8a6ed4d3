/**
 * `POST /api/message-authors` (docs/inbox-api.md §4 "Message authors"): who sent the company messages a
 * page shows, looked up by conversation and clientMessageId, up to 200 at once, of conversations the
 * caller has access to.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import { isId } from '../../crypto/rules';
import { requireConversationAccess } from '../conversations/access';
import { lookUpAuthors } from '../db/message-authors';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { requireSession, answer, handle } from './event';

const MAX_MESSAGES = 200;

function readMessages(body: Record<string, unknown>): { conversationId: string; clientMessageId: string }[] {
	const { messages } = body;
	if (!Array.isArray(messages) || messages.length > MAX_MESSAGES) {
		throw new ContractError('INVALID_REQUEST', `messages must be a list of at most ${MAX_MESSAGES} { conversationId, clientMessageId }`);
	}
	return messages.map((item: unknown, index) => {
		const { conversationId, clientMessageId } = (item ?? {}) as Record<string, unknown>;
		if (!isId(conversationId) || !isId(clientMessageId)) {
			throw new ContractError(
				'INVALID_REQUEST',
				`messages[${index}] needs a conversationId and a clientMessageId of the contract's id form`
			);
		}
		return { conversationId, clientMessageId };
	});
}

/** Authors only of conversations the caller may read: one it has no access to refuses the whole request. */
export const postMessageAuthors = handle(API.lookUpAuthors, async (event, inbox) => {
	const { account } = requireSession(event);
	const messages = readMessages(await readJsonObject(event.request, BODY_LIMITS.list));
	for (const conversationId of new Set(messages.map((message) => message.conversationId))) {
		await requireConversationAccess(inbox, account, conversationId);
	}
	return answer(API.lookUpAuthors, { data: await lookUpAuthors(inbox.db, messages) });
});
