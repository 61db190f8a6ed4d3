import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useDatabases } from '$test-support/databases';
import { listAuditEntries } from '../lib/server/db/audit';
import { findAccountForLogin } from '../lib/server/db/accounts';
import { COMMAND_LINE_ACTOR } from '../lib/server/admin/new-account';
import { run } from './admin-commands';

describe('npm run admin (docs/inbox-api.md §8; docs/threat-model.md, "A lone admin")', () => {
	const databases = useDatabases('PGlite');
	beforeEach(() => {
		process.env.INBOX_ADMIN_PASSWORD = 'a long enough password';
	});
	afterEach(() => {
		delete process.env.INBOX_ADMIN_PASSWORD;
	});

	it('puts every account it makes and every password it sets in the audit log, in the name of the command line', async () => {
		const db = await databases.open();
		expect(await run(db, 'create', { username: 'root', role: 'admin' })).toMatch(/^created admin root \(acc_/);
		process.env.INBOX_ADMIN_PASSWORD = 'another long password';
		expect(await run(db, 'set-password', { username: 'root' })).toMatch(/password of root is changed/);
		const root = await findAccountForLogin(db, 'root');
		expect(root?.account).toMatchObject({ role: 'admin', roleGrantedBy: null });
		const entries = await listAuditEntries(db, { limit: 10 });
		expect(entries.map(({ action, actorId, actorName, target, details }) => ({ action, actorId, actorName, target, details }))).toEqual([
			{ action: 'account.password_set', actorId: null, actorName: COMMAND_LINE_ACTOR, target: root?.account.accountId, details: {} },
			{
				action: 'account.created',
				actorId: null,
				actorName: COMMAND_LINE_ACTOR,
				target: root?.account.accountId,
				details: { role: 'admin', username: 'root', via: 'command line' }
			}
		]);
	});
});
