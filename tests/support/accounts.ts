/** An account record as the store returns it, for specs that need one without a database row. */
import type { Account } from '../../src/lib/server/db/accounts';

export function accountRecord(fields: Pick<Account, 'accountId' | 'username' | 'role'> & Partial<Account>): Account {
	return {
		displayName: fields.username,
		agentKeyId: null,
		agentPublicKey: null,
		createdAt: new Date('2026-11-01T00:00:00Z'),
		disabledAt: null,
		roleSince: new Date('2026-11-01T00:00:00Z'),
		roleGrantedBy: null,
		...fields
	};
}
