/**
 * Agents, invitations and the signing key's public half for admins (docs/inbox-api.md "Administration");
 * `POST /api/join` for the invited person.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
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
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { idParam, requireSession, answer, handle } from './event';
import { startSession } from './session';
import type { Account } from '../db/accounts';
import type { Inbox } from '../inbox';
import { sessionJson } from './views';
import { isRosterAgent } from '../conversations/access';
import type { AdminAgentList, SigningPublicKey } from '../../inbox-api/agents';

export const getAgents = handle(API.listAgents, async (event, inbox) => {
	requireSession(event);
	return answer(API.listAgents, { data: await listAgents(inbox) } satisfies AdminAgentList);
});

export const getAgentInvitations = handle(API.listAgentInvitations, async (event, inbox) => {
	requireSession(event);
	return answer(API.listAgentInvitations, { data: await pendingAgentInvitations(inbox) });
});

export const postAgentInvitation = handle(API.inviteAgent, async (event, inbox) => {
	const { account } = requireSession(event);
	return answer(API.inviteAgent, await inviteAgent(inbox, account, await readJsonObject(event.request, BODY_LIMITS.fields)), 201);
});

/**
 * An admin's action on the account named in the path, answered `204`; a POST's `{}` is read (and ignored).
 */
function accountAction(
	endpoint: typeof API.disableAgent | typeof API.enableAgent | typeof API.resetAgentKey | typeof API.removeAgent,
	act: (inbox: Inbox, admin: Account, accountId: string) => Promise<unknown>
) {
	return handle(endpoint, async (event, inbox) => {
		const { account } = requireSession(event);
		if (endpoint.method === 'POST') await readJsonObject(event.request, BODY_LIMITS.fields);
		await act(inbox, account, idParam(event.params.accountId, 'accountId'));
		return answer(endpoint, undefined);
	});
}

export const disableAgent = accountAction(API.disableAgent, (inbox, admin, id) => setDisabled(inbox, admin, id, true));

export const enableAgent = accountAction(API.enableAgent, (inbox, admin, id) => setDisabled(inbox, admin, id, false));

export const deleteAgent = accountAction(API.removeAgent, removeAgent);

export const postResetKey = accountAction(API.resetAgentKey, resetAgentKey);

export const deleteAgentInvitation = handle(API.revokeAgentInvitation, async (event, inbox) => {
	const { account } = requireSession(event);
	await revokeInvitation(inbox, account, idParam(event.params.invitationId, 'invitationId'));
	return answer(API.revokeAgentInvitation, undefined);
});

/** `signing.pub` only (contract 2.1): the page checks that the `signing.key` it imports belongs to it. */
export const getSigningKey = handle(API.getSigningPublicKey, async (event, inbox) => {
	requireSession(event);
	const { signingPublicKey } = await inbox.companyKeys();
	return answer(API.getSigningPublicKey, {
		publicKey: b64uEncode(signingPublicKey),
		fingerprint: fingerprintB64u(signingPublicKey),
		fingerprintHex: fingerprintDisplay(signingPublicKey)
	} satisfies SigningPublicKey);
});

export const postJoin = handle(API.join, async (event, inbox) => {
	const account = await joinWithInvitation(inbox, await readJsonObject(event.request, BODY_LIMITS.form));
	const expiresAt = await startSession(event, inbox, account.accountId);
	return answer(API.join, sessionJson(account, expiresAt, await isRosterAgent(inbox.db, account)), 201);
});
