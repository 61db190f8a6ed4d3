/**
 * The JSON the browser receives for an account and its session (docs/inbox-api.md §2): what the UI shows
 * and what the worker needs, never the password hash.
 */
import { hasDemoKeyBackup } from '../demo-backups';
import type { AccountView, SessionInfo } from '../../inbox-api/records';
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

/** The answer of a login, a session check or a join (docs/inbox-api.md §2, §12). */
export function sessionJson(account: Account, expiresAt: Date, rosterAgent: boolean): SessionInfo {
	return {
		account: accountJson(account),
		expiresAt: expiresAt.toISOString(),
		demoKeyBackup: hasDemoKeyBackup(account.username),
		rosterAgent
	};
}
