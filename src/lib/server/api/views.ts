/**
 * The JSON the browser receives for an account (docs/inbox-api.md §2): what the UI shows and what the
 * worker needs, never the password hash.
 */
import type { AccountView } from '../../inbox-api/records';
import type { Account } from '../db/accounts';

export function accountJson(account: Account): AccountView {
	return {
		accountId: account.accountId,
		username: account.username,
		displayName: account.displayName,
		role: account.role,
		agentKeyId: account.agentKeyId,
		agentPublicKey: account.agentPublicKey
	};
}
