/**
 * The rules of a new account (docs/inbox-api.md §8), for the admin API and `npm run admin` alike:
 * username, display name, role and password, each problem naming its field.
 */
import { ContractError } from '../../errors';
import type { Role } from '../db/accounts';

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
