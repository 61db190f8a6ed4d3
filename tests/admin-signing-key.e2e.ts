/**
 * The signing key in the admin's page: `signing.key` is imported into the browser's
 * key store through the page and checked against the server's `signing.pub`; another company's key or
 * a file that is no key is refused and nothing is kept; later visits unlock it; no request ever
 * carries the secret. Agents have no admin entry and the admin API refuses them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fingerprintDisplay, initCrypto, parseKeyFile } from '../src/lib/crypto/index';
import {
	adminTab,
	expect,
	foreignSigningKeyFile,
	importSigningKey,
	readyAdmin,
	signingKeyPath,
	submitSigningKey,
	unlockSigningKey
} from './support/admin-e2e';
import { createKey, navLink, screenshot, signIn, test, opensUnlocked } from './support/inbox-e2e';
import { spellings } from './support/secrets';

test('an admin imports signing.key in the page; a wrong key is refused and nothing is kept; the secret is never sent', async ({
	page,
	inbox
}) => {
	await initCrypto();
	const secret = parseKeyFile(readFileSync(signingKeyPath(inbox), 'utf8'), 64, 'signing.key');
	const signingPub = parseKeyFile(readFileSync(join(inbox.stack.dataDir, 'keys', 'signing.pub'), 'utf8'), 32, 'signing.pub');
	const sent: string[] = [];
	page.on('request', (request) => sent.push(`${request.url()}\n${request.postData() ?? ''}`));

	await readyAdmin(page, inbox);
	await adminTab(page, 'Signing key');
	await expect(page.getByTestId('expected-fingerprint')).toHaveText(fingerprintDisplay(signingPub));

	// another company's signing.key: refused by the worker before anything is stored
	await submitSigningKey(page, await foreignSigningKeyFile());
	await expect(page.getByTestId('signing-import-error')).toHaveAttribute('data-code', 'INVALID_INPUT');
	await expect(page.getByTestId('signing-import-error')).toContainText("not the company's signing key");
	// a file that is no key at all
	const notAKey = join(inbox.stack.dataDir, 'notes.txt');
	writeFileSync(notAKey, 'these are not the keys you are looking for\n');
	await submitSigningKey(page, notAKey);
	await expect(page.getByTestId('signing-import-error')).toHaveAttribute('data-code', 'INVALID_INPUT');

	// nothing was kept: a new visit still asks for the file
	await page.reload();
	await opensUnlocked(page);
	await adminTab(page, 'Signing key');
	await expect(page.getByTestId('signing-key-page')).toHaveAttribute('data-phase', 'import');
	expect(await page.evaluate(() => indexedDB.databases().then((list) => list.length))).toBeGreaterThan(0);

	// the company's own file is accepted and shows its fingerprint
	await importSigningKey(page, inbox);
	await expect(page.getByTestId('signing-key-page')).toHaveAttribute('data-phase', 'ready');
	await expect(page.getByTestId('signing-fingerprint')).toHaveText(fingerprintDisplay(signingPub));
	await expect(page.getByTestId('signing-fingerprint')).toHaveText(/^([0-9a-f]{4} ){15}[0-9a-f]{4}$/);
	await screenshot(page, 'admin-signing-key');

	// a later visit unlocks it with its passphrase; a wrong one changes nothing
	await page.reload();
	await opensUnlocked(page);
	await adminTab(page, 'Signing key');
	await expect(page.getByTestId('signing-key-page')).toHaveAttribute('data-phase', 'unlock');
	await page.getByTestId('signing-unlock').getByLabel('Signing key passphrase').fill('not the passphrase');
	await page.getByTestId('signing-unlock').getByRole('button', { name: 'Unlock signing key' }).click();
	await expect(page.getByTestId('signing-unlock-error')).toHaveAttribute('data-code', 'WRONG_PASSPHRASE');
	await unlockSigningKey(page);
	await expect(page.getByTestId('signing-key-page')).toHaveAttribute('data-phase', 'ready');

	// no request of this page carried the secret, in any spelling
	const leaked = spellings(secret).filter((spelling) => sent.some((request) => request.includes(spelling)));
	expect(leaked).toEqual([]);
	expect(sent.length).toBeGreaterThan(10);
});

test('an agent has no admin entry, and the admin pages and API refuse them', async ({ page, inbox }) => {
	const agent = await inbox.createAgent('plain');
	await signIn(page, agent);
	await createKey(page);
	await expect(navLink(page, 'Inbox')).toBeVisible();
	await expect(navLink(page, 'Admin')).toHaveCount(0);
	const status = await page.evaluate(async () => {
		const response = await fetch('/api/admin/agents');
		return { status: response.status, body: await response.json() };
	});
	expect(status).toEqual({ status: 403, body: { error: expect.objectContaining({ code: 'FORBIDDEN' }) } });
	await page.goto('/admin/agents');
	await opensUnlocked(page);
	await expect(page.getByTestId('admin-forbidden')).toBeVisible();
});
