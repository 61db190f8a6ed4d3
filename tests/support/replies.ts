/**
 * Agents' replies as the agent's worker makes them (contract 4; docs/inbox-api.md §6): the test opens the
 * conversation key with the company key files of the test stack, and encrypts each text under it.
 */
import { join } from 'node:path';
import { encryptMessage, newClientMessageId, openConversationKey } from '../../src/lib/crypto/index';
import { loadCompanyKeys } from '../../src/lib/server/keys/files';
import type { InboxClient } from './inbox-client';

/** A maker of `POST /api/v1/messages` bodies for the conversation, with the key `agent` reads from the proxy. */
export async function companyReplies(agent: InboxClient, dataDir: string, conversationId: string) {
	const keys = await loadCompanyKeys(join(dataDir, 'keys'));
	const record = await agent.get(`/api/v1/conversations/${conversationId}`);
	const conversationKey = openConversationKey(record.body.wrapForCompany, conversationId, [keys.current, ...keys.previous]);
	return (text: string, clientMessageId = newClientMessageId()) => ({
		conversationId,
		contentType: 'text',
		encryption: encryptMessage({ conversationKey, conversationId, senderType: 'company', clientMessageId, keyVersion: 1, text })
	});
}
