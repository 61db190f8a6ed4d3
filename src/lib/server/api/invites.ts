/**
 * `POST /api/invites` (docs/inbox-api.md §5; contract 6.3): a new invitation whose link, with the
 * invite secret and the company key's fingerprint in its fragment, is returned this once.
 */
import { createInvitation, readExpiresIn } from '../conversations/invitations';
import { json, readJsonObject } from '../http/responses';
import { idempotencyKeyOf } from './conversations';
import { requireSession, route } from './event';

export const postInvite = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const body = await readJsonObject(event.request, 4 * 1024);
	const invitation = await createInvitation(inbox, {
		account,
		expiresIn: readExpiresIn(body),
		idempotencyKey: idempotencyKeyOf(event.request)
	});
	return json(invitation, 201);
});
