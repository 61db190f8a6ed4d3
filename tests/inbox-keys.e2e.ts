/**
 * Getting in: first login creates the agent's key in the worker and registers it; a
 * reload opens the key the browser session unlocked, and after a lock asks for the passphrase; a wrong
 * one changes nothing; lock, idle lock and sign-out wipe the key;
 * a browser without the key restores it from a backup file, or makes a new one for an admin to re-grant.
 */
import { readFile } from 'node:fs/promises';
import {
	ADMIN,
	createKey,
	expect,
	lockKey,
	navLink,
	opensUnlocked,
	PASSPHRASE,
	screenshot,
	signIn,
	test,
	unlock
} from './support/inbox-e2e';

test('first login creates the key, registers it, and says an admin must add it to the roster', async ({ page, inbox }) => {
	const agent = await inbox.createAgent('first');
	await page.goto('/inbox');
	await expect(page).toHaveURL(/\/login\?next=%2Finbox/);
	await screenshot(page, 'login');
	await signIn(page, agent);

	const gate = page.getByTestId('key-gate');
	await expect(gate).toHaveAttribute('data-screen', 'create');
	await page.getByLabel('New passphrase').fill(PASSPHRASE);
	await page.getByLabel('Repeat the passphrase').fill('another passphrase');
	await page.getByRole('button', { name: 'Create key' }).click();
	await expect(page.getByTestId('key-error')).toHaveText('The two passphrases differ.');
	await screenshot(page, 'key-create');
	await createKey(page);

	await expect(navLink(page, 'Admin')).toHaveCount(0);
	const notice = page.getByTestId('notice-new-key');
	await expect(notice).toContainText('An admin must add it to the roster');
	const fingerprint = (await notice.locator('.fingerprint').textContent())?.trim();
	expect(fingerprint).toMatch(/^([0-9a-f]{4} ){15}[0-9a-f]{4}$/);

	// the server knows the public key the worker made, and nothing else of it
	const account = await inbox.account(agent.username);
	await navLink(page, 'Key').click();
	await expect(page.getByTestId('agent-key-id')).toHaveText(account.agentKeyId as string);
	await expect(page.getByTestId('agent-fingerprint')).toHaveText(fingerprint as string);
	expect(account.agentPublicKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
	// outside the demo, the server hands out no key backup
	expect(await page.evaluate(async () => (await fetch('/api/demo/key-backup')).status)).toBe(404);
});

test('before the page is live, signing in is not possible, so the password never goes into an address', async ({ browser, inbox }) => {
	const context = await browser.newContext({ javaScriptEnabled: false, baseURL: inbox.url });
	const page = await context.newPage();
	await page.goto('/login');
	await expect(page.getByRole('button', { name: 'Sign in' })).toBeDisabled();
	await expect(page.locator('form')).toHaveAttribute('method', 'post');
	await page.getByLabel('Password').fill('a password');
	await page.getByLabel('Password').press('Enter');
	expect(page.url()).not.toContain('password');
	await context.close();
});

test('an admin has the Admin entry in the navigation', async ({ page }) => {
	await signIn(page, ADMIN);
	await createKey(page);
	await expect(navLink(page, 'Admin')).toHaveAttribute('href', '/admin');
});

test('a reload opens the key without the passphrase; after a lock it asks, a wrong one changes nothing, the right one unlocks', async ({
	page,
	inbox
}) => {
	const agent = await inbox.createAgent('reload');
	await signIn(page, agent);
	await createKey(page);
	const keyId = (await inbox.account(agent.username)).agentKeyId;

	await page.reload();
	await opensUnlocked(page);
	await lockKey(page);
	await page.reload();
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'unlock');
	await page.getByLabel('Passphrase', { exact: true }).fill('not the passphrase');
	await page.getByRole('button', { name: 'Unlock' }).click();
	await expect(page.getByTestId('key-error')).toContainText('does not open the key. Nothing was changed.');
	await screenshot(page, 'key-unlock');

	await unlock(page);
	await navLink(page, 'Key').click();
	await expect(page.getByTestId('agent-key-id')).toHaveText(keyId as string);
	expect((await inbox.account(agent.username)).agentKeyId).toBe(keyId);
});

test('lock, idle lock and sign-out wipe the key; the session ends with sign-out', async ({ page, inbox }) => {
	const agent = await inbox.createAgent('lock');
	await signIn(page, agent);
	await createKey(page);

	await page.getByTestId('lock').click();
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'unlock');
	await unlock(page);

	// a short idle time for this test (the Key page offers minutes)
	await page.evaluate(() => localStorage.setItem('inbox:idle-lock-seconds', '5'));
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'unlock', { timeout: 20_000 });
	await expect(page.getByText('locked after a period of inactivity')).toBeVisible();
	await page.evaluate(() => localStorage.removeItem('inbox:idle-lock-seconds'));
	await unlock(page);

	await page.getByTestId('logout').click();
	await expect(page).toHaveURL(/\/login/);
	const session = await page.evaluate(async () => (await fetch('/api/session')).status);
	expect(session).toBe(401);
	await page.goto('/inbox');
	await expect(page).toHaveURL(/\/login/);
});

test('a browser without the key restores it from the backup file, or makes a new one for an admin to re-grant', async ({
	page,
	inbox,
	browser
}) => {
	const agent = await inbox.createAgent('restore');
	await signIn(page, agent);
	await createKey(page);
	const registered = await inbox.account(agent.username);

	await navLink(page, 'Key').click();
	await page.getByLabel('Your passphrase').fill(PASSPHRASE);
	await page.getByRole('button', { name: 'Make backup file' }).click();
	const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('backup-download').click()]);
	const backupPath = await download.path();
	const backup = JSON.parse(await readFile(backupPath, 'utf8'));
	expect(backup).toMatchObject({ format: 'encrypted-inbox-key-backup', kind: 'agent', agentKeyId: registered.agentKeyId });

	// another browser: no key store
	const other = await browser.newContext();
	const second = await other.newPage();
	await signIn(second, agent);
	await expect(second.getByTestId('key-gate')).toHaveAttribute('data-screen', 'restore');
	await screenshot(second, 'key-restore');
	await second.getByLabel('Key backup file').setInputFiles(backupPath);
	await second.getByLabel('Backup passphrase').fill('wrong passphrase!');
	await second.getByRole('button', { name: 'Restore key' }).click();
	await expect(second.getByTestId('key-error')).toContainText('does not open the key');
	await second.getByLabel('Backup passphrase').fill(PASSPHRASE);
	await second.getByRole('button', { name: 'Restore key' }).click();
	await expect(second.getByTestId('conversation-scroller')).toBeVisible();
	await navLink(second, 'Key').click();
	await expect(second.getByTestId('agent-key-id')).toHaveText(registered.agentKeyId as string);
	await other.close();

	// a third browser with no backup at hand: a new key replaces the registered one
	const third = await browser.newContext();
	const page3 = await third.newPage();
	await signIn(page3, agent);
	await page3.getByRole('button', { name: 'No backup? Create a new key' }).click();
	await page3.getByLabel('New passphrase').fill('a brand new passphrase');
	await page3.getByLabel('Repeat the passphrase').fill('a brand new passphrase');
	await page3.getByRole('button', { name: 'Create key' }).click();
	await expect(page3.getByTestId('key-error')).toContainText('Confirm that you understand');
	await page3.getByText('I understand: an admin must grant my new key access again.').click();
	await page3.getByRole('button', { name: 'Create key' }).click();
	await expect(page3.getByTestId('notice-new-key')).toBeVisible();
	const replaced = await inbox.account(agent.username);
	expect(replaced.agentKeyId).not.toBe(registered.agentKeyId);
	await third.close();

	// the first browser now holds a key that is no longer the account's, and says so
	await page.reload();
	await opensUnlocked(page);
	await expect(page.getByTestId('notice-key-mismatch')).toBeVisible();
});

test('libsodium runs only in the worker: the page never loads it', async ({ page, inbox }) => {
	const scripts = new Map<string, string>();
	page.on('response', async (response) => {
		if (response.url().endsWith('.js')) scripts.set(new URL(response.url()).pathname, await response.text().catch(() => ''));
	});
	const agent = await inbox.createAgent('bundle');
	await signIn(page, agent);
	await createKey(page);
	await navLink(page, 'Key').click();
	await expect(page.getByTestId('agent-fingerprint')).toBeVisible();

	const worker = [...scripts].filter(([path]) => path.includes('/workers/'));
	const main = [...scripts].filter(([path]) => !path.includes('/workers/'));
	expect(worker.some(([, text]) => text.includes('libsodium'))).toBe(true);
	expect(main.length).toBeGreaterThan(3);
	expect(main.filter(([, text]) => text.includes('libsodium')).map(([path]) => path)).toEqual([]);
});
