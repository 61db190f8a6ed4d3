/**
 * Agent and admin accounts (docs/inbox-api.md §2, §3, §8): login names, Argon2id password hashes, role,
 * and the agent's registered X25519 public key with its `agentKeyId` (contract 2.9). Never a secret key.
 */
import { randomBytes } from 'node:crypto';
import { ContractError } from '../../errors';
import { b64uEncode } from '../../crypto/encoding';
import type { Queryable } from './database';
import { isUniqueViolation } from './errors';
import { ACCOUNT_CHANGED_CHANNEL } from './live-events';
import type { AccountView, Role } from '../../inbox-api/records';

export type { Role };

export interface Account extends AccountView {
	createdAt: Date;
	disabledAt: Date | null;
	/** Since when the account has its role (docs/threat-model.md, "A lone admin"). */
	roleSince: Date;
	/** The admin who gave it its role; null when it came from the command line (`npm run admin`). */
	roleGrantedBy: string | null;
}

export interface AccountRow {
	account_id: string;
	username: string;
	display_name: string;
	role: Role;
	agent_key_id: string | null;
	agent_public_key: string | null;
	created_at: Date;
	disabled_at: Date | null;
	role_since: Date;
	role_granted_by: string | null;
}

/** The columns of an Account, qualified by `alias` when given (for joins). */
export function accountColumns(alias = ''): string {
	const prefix = alias ? `${alias}.` : '';
	return [
		'account_id',
		'username',
		'display_name',
		'role',
		'agent_key_id',
		'agent_public_key',
		'created_at',
		'disabled_at',
		'role_since',
		'role_granted_by'
	]
		.map((column) => prefix + column)
		.join(', ');
}

const COLUMNS = accountColumns();

export function toAccount(row: AccountRow): Account {
	return {
		accountId: row.account_id,
		username: row.username,
		displayName: row.display_name,
		role: row.role,
		agentKeyId: row.agent_key_id,
		agentPublicKey: row.agent_public_key,
		createdAt: new Date(row.created_at),
		disabledAt: row.disabled_at ? new Date(row.disabled_at) : null,
		roleSince: new Date(row.role_since),
		roleGrantedBy: row.role_granted_by
	};
}

/** An account's id: `acc_` and 16 base64url characters (docs/inbox-api.md §1). */
const ACCOUNT_ID_RULE = /^acc_[A-Za-z0-9_-]{16}$/;

export function isAccountId(value: unknown): value is string {
	return typeof value === 'string' && ACCOUNT_ID_RULE.test(value);
}

export function newAccountId(): string {
	return `acc_${b64uEncode(randomBytes(12))}`;
}

/** A new account; `grantedBy` is the admin who makes it (its role's origin), null from the command line. */
export async function createAccount(
	db: Queryable,
	input: { username: string; displayName: string; role: Role; passwordHash: string; grantedBy?: string | null },
	now: Date
): Promise<Account> {
	try {
		const [row] = await db.query<AccountRow>(
			`insert into accounts (account_id, username, display_name, role, password_hash, created_at, role_since, role_granted_by)
			 values ($1, $2, $3, $4, $5, $6, $6, $7) returning ${COLUMNS}`,
			[newAccountId(), input.username, input.displayName, input.role, input.passwordHash, now, input.grantedBy ?? null]
		);
		return toAccount(row);
	} catch (error) {
		if (isUniqueViolation(error)) throw new ContractError('ALREADY_EXISTS', `the username ${input.username} is taken`);
		throw error;
	}
}

/** The account and its password hash, for login. */
export async function findAccountForLogin(
	db: Queryable,
	username: string
): Promise<{ account: Account; passwordHash: string } | undefined> {
	const [row] = await db.query<AccountRow & { password_hash: string }>(
		`select ${COLUMNS}, password_hash from accounts where username = $1`,
		[username]
	);
	return row && { account: toAccount(row), passwordHash: row.password_hash };
}

export async function getAccount(db: Queryable, accountId: string): Promise<Account | undefined> {
	const [row] = await db.query<AccountRow>(`select ${COLUMNS} from accounts where account_id = $1`, [accountId]);
	return row && toAccount(row);
}

export async function listAccounts(db: Queryable): Promise<Account[]> {
	return (await db.query<AccountRow>(`select ${COLUMNS} from accounts order by username`)).map(toAccount);
}

export async function setPasswordHash(db: Queryable, accountId: string, passwordHash: string): Promise<void> {
	await db.query('update accounts set password_hash = $2 where account_id = $1', [accountId, passwordHash]);
}

/**
 * Registers the agent's key (docs/inbox-api.md §3): the same pair again is a no-op; another pair needs
 * `replace`; an id or key held by another account is refused.
 */
export async function registerAgentKey(
	db: Queryable,
	input: { accountId: string; agentKeyId: string; publicKey: string; replace: boolean },
	now: Date
): Promise<Account> {
	const current = await getAccount(db, input.accountId);
	if (!current) throw new ContractError('UNAUTHENTICATED', 'the account no longer exists');
	if (current.agentKeyId === input.agentKeyId && current.agentPublicKey === input.publicKey) return current;
	if (current.agentKeyId !== null && !input.replace) {
		throw new ContractError('ALREADY_EXISTS', `a key (${current.agentKeyId}) is already registered; send replace: true to replace it`);
	}
	try {
		const [row] = await db.query<AccountRow>(
			`update accounts set agent_key_id = $2, agent_public_key = $3, agent_key_registered_at = $4
			 where account_id = $1 returning ${COLUMNS}`,
			[input.accountId, input.agentKeyId, input.publicKey, now]
		);
		await announceAccountChanged(db, input.accountId);
		return toAccount(row);
	} catch (error) {
		if (isUniqueViolation(error)) throw new ContractError('ALREADY_EXISTS', 'this agentKeyId or public key belongs to another account');
		throw error;
	}
}

/** Disables (or enables again) an account; the caller ends its sessions. */
export async function setAccountDisabled(db: Queryable, accountId: string, disabledAt: Date | null): Promise<Account | undefined> {
	const [row] = await db.query<AccountRow>(`update accounts set disabled_at = $2 where account_id = $1 returning ${COLUMNS}`, [
		accountId,
		disabledAt
	]);
	return row && toAccount(row);
}

/** Removes an account (its sessions and read marks go with it). */
export async function deleteAccount(db: Queryable, accountId: string): Promise<boolean> {
	return (await db.query('delete from accounts where account_id = $1 returning account_id', [accountId])).length > 0;
}

/** Forgets the registered key of an agent who lost it: the next login makes a new one. */
export async function clearAgentKey(db: Queryable, accountId: string): Promise<Account | undefined> {
	const [row] = await db.query<AccountRow>(
		`update accounts set agent_key_id = null, agent_public_key = null, agent_key_registered_at = null
		 where account_id = $1 returning ${COLUMNS}`,
		[accountId]
	);
	await announceAccountChanged(db, accountId);
	return row && toAccount(row);
}

/** Tells every process's live streams of the account to read it again (what they show depends on its key). */
async function announceAccountChanged(db: Queryable, accountId: string): Promise<void> {
	await db.query('select pg_notify($1, $2)', [ACCOUNT_CHANGED_CHANNEL, accountId]);
}

/** When each account last used the inbox. */
export async function lastActivity(db: Queryable): Promise<Map<string, Date>> {
	const rows = await db.query<{ account_id: string; last_active_at: Date }>(
		'select account_id, last_active_at from accounts where last_active_at is not null'
	);
	return new Map(rows.map((row) => [row.account_id, new Date(row.last_active_at)]));
}
