/**
 * Invitations (docs/inbox-api.md §5; contract 6.3): a new one whose link carries the invite secret and
 * the company key's fingerprint in its fragment; the pending ones, a pending one's link again, and
 * revoking one.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { createInvitation, readExpiresIn, revokeInvitation, showInvitation } from '../conversations/invitations';
import { listPendingInvites } from '../db/invites';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { idempotencyKeyOf } from './conversations';
import type { Inbox } from '../inbox';
import { idParam, requireSession, type ApiEvent, answer, handle } from './event';

/** An invitation as the request asks (its body's `expiresIn`, its Idempotency-Key): for a new conversation, or `conversationId`'s again. */
async function invitationAsked(event: ApiEvent, inbox: Inbox, conversationId?: string) {
	const { account } = requireSession(event);
	const body = await readJsonObject(event.request, BODY_LIMITS.fields);
	return createInvitation(inbox, {
		account,
		conversationId,
		expiresIn: readExpiresIn(body),
		idempotencyKey: idempotencyKeyOf(event.request)
	});
}

export const postInvite = handle(API.createInvitation, async (event, inbox) =>
	answer(API.createInvitation, await invitationAsked(event, inbox), 201)
);

/** A new invitation for an existing conversation whose customer lost their link (contract 6.4). */
export const reinvite = handle(API.reinvite, async (event, inbox) =>
	answer(API.reinvite, await invitationAsked(event, inbox, idParam(event.params.conversationId, 'conversationId')), 201)
);

export const getInvites = handle(API.listPendingInvites, async (event, inbox) => {
	const { account } = requireSession(event);
	return answer(API.listPendingInvites, { data: await listPendingInvites(inbox.db, account, new Date(inbox.now())) });
});

export const getInvite = handle(API.showInvite, async (event, inbox) => {
	const { account } = requireSession(event);
	return answer(API.showInvite, await showInvitation(inbox, account, idParam(event.params.inviteId, 'inviteId')));
});

export const deleteInvite = handle(API.revokeInvite, async (event, inbox) => {
	const { account } = requireSession(event);
	await revokeInvitation(inbox, account, idParam(event.params.inviteId, 'inviteId'));
	return answer(API.revokeInvite, undefined);
});
