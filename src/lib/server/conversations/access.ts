/**
 * Who may act on a conversation's key (docs/threat-model.md, "A signed-in agent"; contract 2.9, 6.4):
 * an admin, or an agent of the latest signed roster — with the same public key — whose key the
 * conversation is sealed for. Anyone else is refused with `403 NO_CONVERSATION_ACCESS`: a re-invitation
 * or a rewrap approval would otherwise hand the history to whoever asks.
 */
import { ContractError } from '../../errors';
import { latestAcceptedRoster } from '../admin/roster';
import type { Account } from '../db/accounts';
import type { Queryable } from '../db/database';
import type { Inbox } from '../inbox';
import { errorText } from '../log';

export async function hasConversationAccess(db: Queryable, account: Account, conversationId: string): Promise<boolean> {
	if (account.disabledAt) return false;
	if (account.role === 'admin') return true;
	if (!account.agentKeyId || !account.agentPublicKey) return false;
	const rows = await db.query(
		`select 1 from agent_wraps w
		 where w.conversation_id = $1 and w.agent_key_id = $2
		   and exists (
		     select 1 from roster_versions r, jsonb_array_elements(r.agents) a
		     where r.roster_version = (select max(roster_version) from roster_versions)
		       and a ->> 'agentKeyId' = $2 and a ->> 'publicKey' = $3)`,
		[conversationId, account.agentKeyId, account.agentPublicKey]
	);
	return rows.length > 0;
}

/**
 * Refuses with `403 NO_CONVERSATION_ACCESS` unless the account has access. Before refusing an agent
 * whose key the conversation is sealed for, the inbox looks for a newer roster at the service (one
 * uploaded by another tool), which is kept only when it verifies with `signing.pub`.
 */
export async function requireConversationAccess(inbox: Inbox, account: Account, conversationId: string): Promise<void> {
	if (await hasConversationAccess(inbox.db, account, conversationId)) return;
	if (account.role === 'agent' && account.agentKeyId && !account.disabledAt) {
		const rosterBefore = (await inbox.db.query<{ v: number | null }>('select max(roster_version) as v from roster_versions'))[0]?.v;
		await latestAcceptedRoster(inbox).catch((error) =>
			inbox.log.warn('could not look for a newer roster at the service', { reason: errorText(error) })
		);
		const rosterAfter = (await inbox.db.query<{ v: number | null }>('select max(roster_version) as v from roster_versions'))[0]?.v;
		if (rosterAfter !== rosterBefore && (await hasConversationAccess(inbox.db, account, conversationId))) return;
	}
	throw new ContractError(
		'NO_CONVERSATION_ACCESS',
		'only an admin or an agent of the latest roster who holds this conversation’s key may do this'
	);
}
