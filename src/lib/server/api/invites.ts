/**
 * Invitations (docs/inbox-api.md §5; contract 6.3): a new one whose link carries the invite secret and
 * the company key's fingerprint in its fragment; the pending ones, a pending one's link again, and
 * revoking one.
 */
import { createInvitation, readExpiresIn, revokeInvitation, showInvitation } from '../conversations/invitations';
import { listPendingInvites } from '../db/invites';
import { json, readJsonObject, BODY_LIMITS } from '../http/responses';
import { idempotencyKeyOf } from './conversations';
import { idParam, requireSession, route } from './event';

export const postInvite = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const body = await readJsonObject(event.request, BODY_LIMITS.fields);
	const invitation = await createInvitation(inbox, {
		account,
		expiresIn: readExpiresIn(body),
		idempotencyKey: idempotencyKeyOf(event.request)
	});
	return json(invitation, 201);
});

export const getInvites = route(async (event, inbox) => {
	const { account } = requireSession(event);
	return json({ data: await listPendingInvites(inbox.db, account, new Date(inbox.now())) });
});

export const getInvite = route(async (event, inbox) => {
	const { account } = requireSession(event);
	return json(await showInvitation(inbox, account, idParam(event, 'inviteId')));
});

export const deleteInvite = route(async (event, inbox) => {
	const { account } = requireSession(event);
	await revokeInvitation(inbox, account, idParam(event, 'inviteId'));
	return new Response(null, { status: 204 });
});
