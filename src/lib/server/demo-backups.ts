/**
 * Demo only (docs/inbox-api.md §11 "Demo"): where the demo launcher left each demo agent's key backup
 * file, when the inbox runs with `INBOX_DEMO_KEY_BACKUPS`. Anything else has none, and the page does not ask.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** The file of the account's demo key backup, or null when there can be none. */
export function demoKeyBackupPath(username: string): string | null {
	const directory = process.env.INBOX_DEMO_KEY_BACKUPS;
	if (!directory || !USERNAME.test(username) || username.startsWith('.')) return null;
	return join(directory, `${username}.json`);
}

/** Whether the page should offer the account its demo key backup. */
export function hasDemoKeyBackup(username: string): boolean {
	const path = demoKeyBackupPath(username);
	return path !== null && existsSync(path);
}
