/**
 * Demo only: hands the signed-in account the key backup file the demo launcher made for it,
 * so a person trying the demo restores their agent key without picking a file. Off unless the launcher
 * sets `INBOX_DEMO_KEY_BACKUPS` to its backup directory; otherwise `404 NOT_FOUND` like any unknown route.
 * The file is the key store's encrypted backup (src/lib/keystore/backup.ts): useless without the passphrase.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { ContractError } from '$lib/errors';
import { INBOX_API as API } from '$lib/inbox-api/endpoints';
import { answer, handle, requireSession } from '$lib/server/api/event';
import { methodNotAllowed } from '$lib/server/api/fallbacks';
import { demoKeyBackupPath } from '$lib/server/demo-backups';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handle(API.getDemoKeyBackup, async (event) => {
	if (!process.env.INBOX_DEMO_KEY_BACKUPS) throw new ContractError('NOT_FOUND', 'not found');
	const path = demoKeyBackupPath(requireSession(event).account.username);
	if (!path) throw new ContractError('NOT_FOUND', 'no demo key for this account');
	const fileName = basename(path);
	let text: string;
	try {
		text = await readFile(path, 'utf8');
	} catch {
		throw new ContractError('NOT_FOUND', 'no demo key for this account');
	}
	return answer(API.getDemoKeyBackup, { fileName: `inbox-demo-key-${fileName}`, text });
});

export const fallback = methodNotAllowed;
