/**
 * The demo: on a stack started like `npm start` (demo key backups handed out), the demo data
 * seeds keys, a signed roster and conversations; a demo agent's first sign-in in a fresh browser is offered
 * their key backup, restores it with the demo password, and reads the simulated customers' conversations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoBackupDir, seedDemo, type DemoAccount } from '../src/cli/demo/seed';
import { ensureBuild } from '../src/cli/stack/build';
import { startStack } from '../src/cli/stack/stack';
import { expect, InboxStack, messages, screenshot, test as base } from './support/inbox-e2e';
import { seedPgliteDataDir } from './support/pglite-template';

const ACCOUNTS: DemoAccount[] = [
	{ username: 'dana', displayName: 'Dana Admin', role: 'admin', password: 'dana demo password' },
	{ username: 'eli', displayName: 'Eli Agent', role: 'agent', password: 'eli demo password' }
];

const test = base.extend<object, { inbox: InboxStack }>({
	inbox: [
		// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture needs from this pattern
		async ({}, use) => {
			await ensureBuild();
			const dataDir = mkdtempSync(join(tmpdir(), 'inbox-ui-demo-'));
			const stack = await startStack({
				dataDir,
				accounts: ACCOUNTS,
				prepare: () => seedPgliteDataDir(dataDir),
				inboxEnv: { INBOX_DEMO_KEY_BACKUPS: demoBackupDir(dataDir) }
			});
			const seed = { inboxUrl: stack.inbox.url, simUrl: stack.simUrl, dataDir, company: stack.company, accounts: ACCOUNTS };
			expect(await seedDemo(seed)).toEqual({ seeded: true });
			expect(await seedDemo(seed)).toEqual({ seeded: false });
			await use(new InboxStack(stack));
			await stack.stop();
			rmSync(dataDir, { recursive: true, force: true });
		},
		{ scope: 'worker', timeout: 300_000 }
	]
});

test('a demo agent restores the offered key backup and reads the seeded conversations', async ({ page }) => {
	await page.goto('/login');
	await page.getByLabel('Username').fill('eli');
	await page.getByLabel('Password').fill('eli demo password');
	await page.getByRole('button', { name: 'Sign in' }).click();

	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'restore');
	await expect(page.getByTestId('use-demo-backup')).toBeChecked();
	await page.getByLabel('Backup passphrase').fill('eli demo password');
	await page.getByRole('button', { name: 'Restore key' }).click();

	// three conversations from customers (one verified with a photo, one by short code, one with a link) and one pending
	const rows = page.getByTestId('conversation-list').locator('a');
	await expect(rows).toHaveCount(4);
	await expect(page.locator('[data-filter=pending] .n')).toHaveText('1');
	await expect(page.locator('[data-trust=unverified]')).toHaveCount(1);
	const parcel = rows.filter({ hasText: 'Thanks for the quick answer' });
	await expect(parcel).toHaveCount(1);
	await parcel.click();
	await expect(page.locator('[data-testid=attachment][data-name="parcel.png"]').getByTestId('thumbnail')).toBeVisible();
	await expect(page.locator('[data-testid=attachment][data-name="receipt-4312.txt"]')).toBeVisible();
	await expect(messages(page).filter({ hasText: 'Could you send the receipt too?' })).toHaveAttribute('data-sender', 'company');
	await expect(page.getByTestId('message-problem')).toHaveCount(0);
	await screenshot(page, 'inbox');
});
