/**
 * Accounts for admins (docs/inbox-api.md §8): list them, and create agents and admins with a password.
 * The first admin comes from `npm run admin -- create`.
 */
import { validateNewAccount } from '../admin/new-account';
import { createAccount, listAccounts } from '../db/accounts';
import { json, readJsonObject } from '../http/responses';
import { requireSession, route } from './event';
import { accountJson } from './views';

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
