/**
 * The audit log in the admin's browser (docs/threat-model.md, "An admin"): security actions are listed
 * and filtered, the page verifies the hash chain itself, and a row changed directly in the database is
 * reported as the first entry that no longer follows. The inbox runs on PostgreSQL here, so the test can
 * edit the table as someone with database access would.
 */
import { test as base, expect } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ensureBuild } from '../src/cli/stack/build';
import { startStack, type Stack } from '../src/cli/stack/stack';
import { adminTab } from './support/admin-e2e';
import { ADMIN, createKey, signIn } from './support/inbox-e2e';
import { startPostgresCluster } from './support/postgres';

const test = base.extend<object, { onPostgres: Stack }>({
	onPostgres: [
		// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture needs from this pattern
		async ({}, use) => {
			await ensureBuild();
			const cluster = await startPostgresCluster();
			const dataDir = mkdtempSync(join(tmpdir(), 'inbox-audit-e2e-'));
			const stack = await startStack({ dataDir, databaseUrl: await cluster.createDatabase(), accounts: [ADMIN] });
			await use(stack);
			await stack.stop();
			await cluster.destroy();
			rmSync(dataDir, { recursive: true, force: true });
		},
		{ scope: 'worker', timeout: 300_000 }
	],
	baseURL: async ({ onPostgres }, use) => use(onPostgres.inbox.url)
});

test('the admin lists and filters the audit log, and the page finds a row edited in the database', async ({ page, onPostgres }) => {
	await signIn(page, ADMIN);
	await createKey(page);
	await adminTab(page, 'Audit log');
	const rows = page.getByTestId('audit-row');
	await expect(rows.filter({ has: page.locator('text=session.login') }).first()).toBeVisible();
	await page.getByTestId('audit-action').selectOption('session.login');
	await expect(rows.first()).toHaveAttribute('data-action', 'session.login');
	for (const action of await rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-action'))))
		expect(action).toBe('session.login');

	await page.getByTestId('audit-verify-button').click();
	await expect(page.getByTestId('audit-intact')).toBeVisible();

	const seq = Number(await rows.first().getAttribute('data-seq'));
	const client = new pg.Client({ connectionString: onPostgres.databaseUrl as string });
	await client.connect();
	try {
		await client.query(`update audit_log set actor_name = 'nobody at all' where seq = $1`, [seq]);
	} finally {
		await client.end();
	}
	await page.getByTestId('audit-verify-button').click();
	await expect(page.getByTestId('audit-broken')).toHaveAttribute('data-broken-at', String(seq));
	await expect(page.getByTestId('audit-broken')).toContainText(`entry ${seq} was changed after it was written`);
});
