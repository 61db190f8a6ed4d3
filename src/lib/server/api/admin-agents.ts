/**
 * Agents, invitations and the signing key's public half for admins (docs/inbox-api.md "Administration");
 * `POST /api/join` for the invited person.
 */
import { b64uEncode, fingerprintB64u, fingerprintDisplay } from '../../crypto/index';
import {
	inviteAgent,
	joinWithInvitation,
	listAgents,
	pendingAgentInvitations,
	removeAgent,
	resetAgentKey,
	revokeInvitation,
	setDisabled
} from '../admin/agents';
import { json, readJsonObject, BODY_LIMITS } from '../http/responses';
import { idParam, requireSession, route } from './event';
import { startSession } from './session';
import type { Account } from '../db/accounts';
import type { Inbox } from '../inbox';
import { sessionJson } from './views';
import type { AdminAgentList, SigningPublicKey } from '../../inbox-api/agents';

export const getAgents = route(async (event, inbox) => {
	requireSession(event);
	return json({ data: await listAgents(inbox) } satisfies AdminAgentList);
});

export const getAgentInvitations = route(async (event, inbox) => {
	requireSession(event);
	return json({ data: await pendingAgentInvitations(inbox) });
});

export const deleteAgentInvitation = adminAction('invitationId', revokeInvitation);

export const postAgentInvitation = route(async (event, inbox) => {
	const { account } = requireSession(event);
	return json(await inviteAgent(inbox, account, await readJsonObject(event.request, BODY_LIMITS.fields)), 201);
});

/**
 * An admin's action on the account or invitation named in the path, answered `204`; `withBody` reads
 * (and ignores) the `{}` a POST carries.
 */
function adminAction(
	param: string,
	act: (inbox: Inbox, admin: Account, id: string) => Promise<unknown>,
	withBody = false
): ReturnType<typeof route> {
	return route(async (event, inbox) => {
		const { account } = requireSession(event);
		if (withBody) await readJsonObject(event.request, BODY_LIMITS.fields);
		await act(inbox, account, idParam(event, param));
		return new Response(null, { status: 204 });
	});
}

export const disableAgent = adminAction('accountId', (inbox, admin, id) => setDisabled(inbox, admin, id, true), true);

export const enableAgent = adminAction('accountId', (inbox, admin, id) => setDisabled(inbox, admin, id, false), true);

export const deleteAgent = adminAction('accountId', removeAgent);

export const postResetKey = adminAction('accountId', resetAgentKey, true);

/** `signing.pub` only (contract 2.1): the page checks that the `signing.key` it imports belongs to it. */
export const getSigningKey = route(async (event, inbox) => {
	requireSession(event);
	const { signingPublicKey } = await inbox.companyKeys();
	return json({
		publicKey: b64uEncode(signingPublicKey),
		fingerprint: fingerprintB64u(signingPublicKey),
		fingerprintHex: fingerprintDisplay(signingPublicKey)
	} satisfies SigningPublicKey);
});

export const postJoin = route(async (event, inbox) => {
	const account = await joinWithInvitation(inbox, await readJsonObject(event.request, BODY_LIMITS.form));
	const expiresAt = await startSession(event, inbox, account.accountId);
	return json(sessionJson(account, expiresAt), 201);
});
