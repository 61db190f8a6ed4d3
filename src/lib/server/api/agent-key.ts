/**
 * `PUT /api/agent-key` (docs/inbox-api.md §3): the agent's X25519 public key and `agentKeyId`
 * (contract 2.9), registered when the browser's worker creates the key. The server never sees a secret key.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import { b64uDecodeLength } from '../../crypto/encoding';
import { requireAgentKeyId, PUBLIC_KEY_BYTES } from '../../crypto/rules';
import { registerAgentKey } from '../db/accounts';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { requireSession, answer, handle } from './event';
import { accountJson } from './views';

export const putAgentKey = handle(API.registerAgentKey, async (event, inbox) => {
	const session = requireSession(event);
	const body = await readJsonObject(event.request, BODY_LIMITS.fields);
	const agentKeyId = requireAgentKeyId(body.agentKeyId);
	b64uDecodeLength(body.publicKey, PUBLIC_KEY_BYTES, 'publicKey');
	if (body.replace !== undefined && typeof body.replace !== 'boolean')
		throw new ContractError('INVALID_REQUEST', 'replace must be true or false');
	const account = await registerAgentKey(
		inbox.db,
		{ accountId: session.account.accountId, agentKeyId, publicKey: body.publicKey as string, replace: body.replace === true },
		new Date(inbox.now())
	);
	if (account.agentKeyId !== session.account.agentKeyId) inbox.log.info('agent key registered', { account: account.accountId, agentKeyId });
	inbox.sessionCache.dropAccount(account.accountId);
	return answer(API.registerAgentKey, { account: accountJson(account) });
});
