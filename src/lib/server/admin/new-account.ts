/**
 * The rules of a new account (docs/inbox-api.md §8), for the admin API, joining through a link and
 * `npm run admin` alike: username, display name, role and password, each problem naming its field; and
 * the audit entry every new account gets.
 */
import { ContractError } from '../../errors';
import { recordAudit } from '../audit/record';
import { createAccount, type Account, type Role } from '../db/accounts';
import type { Database, Queryable } from '../db/database';

const USERNAME_RULE = /^[A-Za-z0-9._@-]{1,64}$/;
const MIN_PASSWORD = 12;
const MAX_PASSWORD = 1024;

/** Checks a new account's fields (also used by `npm run admin`); each problem names its field. */
export function validateNewAccount(input: Record<string, unknown>): {
	username: string;
	displayName: string;
	role: Role;
	password: string;
} {
	const { username, displayName, role, password } = input;
	if (typeof username !== 'string' || !USERNAME_RULE.test(username)) {
		throw new ContractError('INVALID_REQUEST', 'username must be 1 to 64 characters of letters, digits and . _ @ -');
	}
	if (typeof displayName !== 'string' || displayName.trim().length === 0 || displayName.length > 100) {
		throw new ContractError('INVALID_REQUEST', 'displayName must be 1 to 100 characters');
	}
	if (role !== 'agent' && role !== 'admin') throw new ContractError('INVALID_REQUEST', 'role must be agent or admin');
	if (typeof password !== 'string' || password.length < MIN_PASSWORD || password.length > MAX_PASSWORD) {
		throw new ContractError('INVALID_REQUEST', `password must be ${MIN_PASSWORD} to ${MAX_PASSWORD} characters`);
	}
	return { username, displayName: displayName.trim(), role, password };
}

/** How an account came to be, for the audit log. */
export type AccountOrigin = { via: 'admin' } | { via: 'invitation'; invitationId: string } | { via: 'command line' };

/** Who made an account or changed it from the command line: no account, a name the log shows. */
export const COMMAND_LINE_ACTOR = 'command line (npm run admin)';

/**
 * Records a new account in the audit log, in the transaction that created it (docs/threat-model.md, "A
 * lone admin"): its role, who gave it that role and how.
 */
export async function recordAccountCreated(
	tx: Queryable,
	account: Account,
	origin: AccountOrigin,
	now: Date,
	actor?: Account
): Promise<void> {
	await recordAudit(
		tx,
		{
			actor: actor ?? null,
			actorName: actor ? undefined : origin.via === 'command line' ? COMMAND_LINE_ACTOR : account.displayName,
			action: 'account.created',
			target: account.accountId,
			details: {
				role: account.role,
				username: account.username,
				via: origin.via,
				...('invitationId' in origin ? { invitationId: origin.invitationId } : {})
			}
		},
		now
	);
}

/** Creates the account and its audit entry in one transaction. */
export async function createRecordedAccount(
	db: Database,
	input: { username: string; displayName: string; role: Role; passwordHash: string },
	origin: AccountOrigin,
	now: Date,
	admin?: Account
): Promise<Account> {
	return db.transaction(async (tx) => {
		const created = await createAccount(tx, { ...input, grantedBy: admin?.accountId ?? null }, now);
		await recordAccountCreated(tx, created, origin, now, admin);
		return created;
	});
}
