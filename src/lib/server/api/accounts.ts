/**
 * Accounts for admins (docs/inbox-api.md §8): list them, and create agents and admins with a password
 * (the first admin comes from `npm run admin -- create`); the team's names for everyone (§4 "Team").
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import type { TeamMember } from '../../inbox-api/records';
import { createRecordedAccount, validateNewAccount } from '../admin/new-account';
import { listAccounts } from '../db/accounts';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { requireSession, answer, handle } from './event';
import { accountJson } from './views';
import { availabilities, parseAvailabilityChange, setAvailability } from '../conversations/availability';

export const getAccounts = handle(API.listAccounts, async (event, inbox) => {
	requireSession(event);
	return answer(API.listAccounts, { data: (await listAccounts(inbox.db)).map(accountJson) });
});

/** A new account with its password, made by an admin: its role comes from them, and the audit log says so. */
export const postAccount = handle(API.createAccount, async (event, inbox) => {
	const { account: admin } = requireSession(event);
	const fields = validateNewAccount(await readJsonObject(event.request, BODY_LIMITS.form));
	const passwordHash = await inbox.passwords.hash(fields.password);
	const account = await createRecordedAccount(inbox.db, { ...fields, passwordHash }, { via: 'admin' }, new Date(inbox.now()), admin);
	inbox.log.info('account created', { account: account.accountId, role: account.role, by: admin.accountId });
	return answer(API.createAccount, { account: accountJson(account) }, 201);
});

/** The team as every signed-in account sees it (§4 "Team"): names and availability for the pickers, never more. */
export const getTeam = handle(API.getTeam, async (event, inbox) => {
	requireSession(event);
	const availability = await availabilities(inbox.db, new Date(inbox.now()));
	const team: TeamMember[] = (await listAccounts(inbox.db))
		.filter((account) => !account.disabledAt)
		.map(({ accountId, displayName, role }) => ({ accountId, displayName, role, availability: availability.get(accountId) ?? 'offline' }))
		.sort((a, b) => a.displayName.localeCompare(b.displayName));
	return answer(API.getTeam, { data: team });
});

/** An agent says they are away or back, or their page locked itself when idle (§4 "Availability"). */
export const putAvailability = handle(API.setAvailability, async (event, inbox) => {
	const { account } = requireSession(event);
	const change = parseAvailabilityChange(await readJsonObject(event.request, BODY_LIMITS.form));
	const now = new Date(inbox.now());
	await setAvailability(inbox.db, account.accountId, change, now);
	// back online: what waited for someone may be theirs now
	inbox.roundRobin.trigger();
	return answer(API.setAvailability, { availability: (await availabilities(inbox.db, now)).get(account.accountId) ?? 'offline' });
});
