/**
 * The commands of `npm run admin` (src/cli/admin.ts): accounts of the inbox from the command line
 * (docs/inbox-api.md §8), for the first admin before anyone can log in. Each account made and each
 * password set is in the audit log, in the name of the command line.
 *
 *   create --username NAME [--display-name "Full Name"] [--role admin|agent]
 *   set-password --username NAME
 *   list
 *
 * The password comes from INBOX_ADMIN_PASSWORD, or is asked twice on the terminal without echo.
 */
import { stdin, stdout } from 'node:process';
import { COMMAND_LINE_ACTOR, createRecordedAccount, validateNewAccount } from '../lib/server/admin/new-account';
import { recordAudit } from '../lib/server/audit/record';
import { PasswordHasher } from '../lib/server/auth/passwords';
import { findAccountForLogin, listAccounts, setPasswordHash } from '../lib/server/db/accounts';
import type { Database } from '../lib/server/db/database';

export const USAGE = `usage: npm run admin -- <command> [options]
  create --username NAME [--display-name "Full Name"] [--role admin|agent]   (role: admin by default)
  set-password --username NAME
  list
The password is read from INBOX_ADMIN_PASSWORD, or asked on the terminal.
The database is DATABASE_URL when set, else PGlite in DATA_DIR (default ./data); stop the inbox first when it uses PGlite.`;

export class UsageError extends Error {}

export function parse(argv: string[]): { command: string; options: Record<string, string> } {
	const [command, ...rest] = argv;
	const options: Record<string, string> = {};
	for (let i = 0; i < rest.length; i++) {
		const match = /^--([a-z-]+)(?:=(.*))?$/.exec(rest[i]);
		if (!match) throw new UsageError(`unexpected argument ${rest[i]}\n${USAGE}`);
		const value = match[2] ?? rest[++i];
		if (value === undefined) throw new UsageError(`--${match[1]} needs a value\n${USAGE}`);
		options[match[1]] = value;
	}
	if (!command) throw new UsageError(USAGE);
	return { command, options };
}

/** Reads a line from the terminal without showing it. */
function askHidden(question: string): Promise<string> {
	if (!stdin.isTTY) throw new UsageError('no terminal to ask the password on: set INBOX_ADMIN_PASSWORD');
	stdout.write(question);
	return new Promise((resolvePassword, reject) => {
		let typed = '';
		stdin.setRawMode(true);
		stdin.resume();
		stdin.setEncoding('utf8');
		const onData = (chunk: string) => {
			for (const character of chunk) {
				if (character === '\r' || character === '\n') {
					stdin.setRawMode(false);
					stdin.pause();
					stdin.off('data', onData);
					stdout.write('\n');
					return resolvePassword(typed);
				}
				if (character === '\u0003') {
					stdin.setRawMode(false);
					return reject(new UsageError('cancelled'));
				}
				if (character === '\u007f') typed = typed.slice(0, -1);
				else typed += character;
			}
		};
		stdin.on('data', onData);
	});
}

async function password(): Promise<string> {
	const fromEnv = process.env.INBOX_ADMIN_PASSWORD;
	if (fromEnv) return fromEnv;
	const first = await askHidden('Password (at least 12 characters): ');
	const second = await askHidden('Same password again: ');
	if (first !== second) throw new UsageError('the two passwords differ; nothing was changed');
	return first;
}

function required(options: Record<string, string>, name: string): string {
	const value = options[name];
	if (!value) throw new UsageError(`--${name} is required\n${USAGE}`);
	return value;
}

export async function run(database: Database, command: string, options: Record<string, string>): Promise<string> {
	const hasher = new PasswordHasher();
	try {
		if (command === 'list') {
			const accounts = await listAccounts(database);
			if (accounts.length === 0) return 'no accounts yet: npm run admin -- create --username NAME';
			return accounts
				.map((account) => `${account.username}\t${account.role}\t${account.displayName}\t${account.agentKeyId ?? '(no key yet)'}`)
				.join('\n');
		}
		if (command === 'create') {
			const username = required(options, 'username');
			const fields = validateNewAccount({
				username,
				displayName: options['display-name'] ?? username,
				role: options.role ?? 'admin',
				password: await password()
			});
			const passwordHash = await hasher.hash(fields.password);
			const account = await createRecordedAccount(database, { ...fields, passwordHash }, { via: 'command line' }, new Date());
			return `created ${account.role} ${account.username} (${account.accountId})`;
		}
		if (command === 'set-password') {
			const username = required(options, 'username');
			const found = await findAccountForLogin(database, username);
			if (!found) throw new UsageError(`no account ${username}`);
			const fields = validateNewAccount({
				username,
				displayName: found.account.displayName,
				role: found.account.role,
				password: await password()
			});
			const passwordHash = await hasher.hash(fields.password);
			await database.transaction(async (tx) => {
				await setPasswordHash(tx, found.account.accountId, passwordHash);
				await recordAudit(
					tx,
					{ actor: null, actorName: COMMAND_LINE_ACTOR, action: 'account.password_set', target: found.account.accountId },
					new Date()
				);
			});
			return `the password of ${username} is changed; its existing sessions stay valid until they expire or log out`;
		}
		throw new UsageError(`unknown command ${command}`);
	} finally {
		await hasher.close();
	}
}

export const COMMANDS = new Set(['create', 'set-password', 'list']);
