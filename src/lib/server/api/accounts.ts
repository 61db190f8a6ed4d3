/**
 * Accounts for admins (docs/inbox-api.md §8): list them, and create agents and admins with a password.
 * The first admin comes from `npm run admin -- create`.
 */
import { ContractError } from '../../errors';
import { createAccount, listAccounts, type Role } from '../db/accounts';
import { json, readJsonObject } from '../http/responses';
import { requireSession, route } from './event';
import { accountJson } from './views';

export const USERNAME_RULE = /^[A-Za-z0-9._@-]{1,64}$/;
export const MIN_PASSWORD = 12;
export const MAX_PASSWORD = 1024;

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

export const getAccounts = route(async (event, inbox) => {
	requireSession(event, 'admin');
	return json({ data: (await listAccounts(inbox.db)).map(accountJson) });
});

export const postAccount = route(async (event, inbox) => {
	const session = requireSession(event, 'admin');
	const fields = validateNewAccount(await readJsonObject(event.request, 8 * 1024));
	const passwordHash = await inbox.passwords.hash(fields.password);
	const account = await createAccount(inbox.db, { ...fields, passwordHash }, new Date(inbox.now()));
	inbox.log.info('account created', { account: account.accountId, role: account.role, by: session.account.accountId });
	return json({ account: accountJson(account) }, 201);
});
