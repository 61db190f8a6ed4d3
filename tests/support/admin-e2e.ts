/**
 * What the admin browser tests (tests/admin*.e2e.ts) share on top of inbox-e2e.ts: a fresh
 * admin per test (each test has its own browser profile, so its own key store), importing the stack's
 * `signing.key` through the page, a `signing.key` of another company, signing the roster on the roster
 * page, and a person joining with an invitation link in their own browser.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import type { AccountSpec } from '../../src/cli/stack/stack';
import { formatKeyFile, generateEd25519KeyPair, initCrypto } from '../../src/lib/crypto/index';
import { createKey, expect, navLink, PASSPHRASE, signIn, type InboxStack } from './inbox-e2e';

export { expect };

/** The passphrase the test admins choose for the signing key. */
export const SIGNING_PASSPHRASE = 'signing key passphrase';

let admins = 0;

/** A new admin account, made through the first admin's API. */
export async function createAdmin(inbox: InboxStack, label = 'admin'): Promise<AccountSpec & { accountId: string }> {
	const n = ++admins;
	const spec: AccountSpec = {
		username: `${label}${n}-${Date.now().toString(36)}`,
		displayName: `${label[0].toUpperCase()}${label.slice(1)} ${n}`,
		role: 'admin',
		password: `password of ${label} ${n}!`
	};
	const { account } = await (await inbox.admin()).call<{ account: { accountId: string } }>('POST', '/api/admin/accounts', spec);
	return { ...spec, accountId: account.accountId };
}

/**
 * A new admin signed in here, with their own agent key made and registered (the admin is an agent too,
 * and a roster signed next must hold that key).
 */
export async function readyAdmin(page: Page, inbox: InboxStack, label = 'admin'): Promise<AccountSpec & { accountId: string }> {
	const admin = await createAdmin(inbox, label);
	await signIn(page, admin);
	await createKey(page);
	await expect.poll(async () => (await inbox.account(admin.username)).agentKeyId).not.toBeNull();
	return admin;
}

/** A new admin signed in here with their agent key, and the company's signing key imported into this browser. */
export async function signingAdmin(page: Page, inbox: InboxStack): Promise<AccountSpec & { accountId: string }> {
	const admin = await readyAdmin(page, inbox);
	await importSigningKey(page, inbox);
	return admin;
}

/** A new agent signed in with a key made in a browser of their own (not yet in a roster). */
export async function agentWithKey(
	browser: Browser,
	inbox: InboxStack,
	label: string
): Promise<{ agent: AccountSpec; page: Page; agentKeyId: string }> {
	const agent = await inbox.createAgent(label);
	const page = await (await browser.newContext()).newPage();
	await signIn(page, agent);
	await createKey(page);
	return { agent, page, agentKeyId: (await inbox.account(agent.username)).agentKeyId as string };
}

export function signingKeyPath(inbox: InboxStack): string {
	return join(inbox.stack.dataDir, 'keys', 'signing.key');
}

/** A well-formed `signing.key` (seed ‖ public, contract 2.1) of another company. */
export async function foreignSigningKeyFile(): Promise<string> {
	await initCrypto();
	const pair = generateEd25519KeyPair();
	const path = join(mkdtempSync(join(tmpdir(), 'foreign-signing-')), 'signing.key');
	writeFileSync(path, formatKeyFile(pair.secretKey), { mode: 0o600 });
	return path;
}

export type AdminTab = 'Signing key' | 'Agents' | 'Roster' | 'Keys' | 'Operations' | 'Policies' | 'Audit log';

/**
 * Opens an admin page by its links, as a person would: a client-side navigation keeps the crypto
 * worker, so the keys stay unlocked (a `page.goto` would start a new page and lock them).
 */
export async function adminTab(page: Page, tab: AdminTab): Promise<void> {
	const tabs = page.getByRole('navigation', { name: 'Administration' });
	if (!(await tabs.isVisible())) await navLink(page, 'Admin').click();
	await tabs.getByRole('link', { name: tab, exact: true }).click();
	await expect(tabs.getByRole('link', { name: tab, exact: true })).toHaveAttribute('aria-current', 'page');
}

/** Imports a key file on the signing key page; the caller checks the outcome. */
export async function submitSigningKey(page: Page, file: string, passphrase = SIGNING_PASSPHRASE): Promise<void> {
	await adminTab(page, 'Signing key');
	const replace = page.getByRole('button', { name: 'Import another file' });
	if (await replace.isVisible()) await replace.click();
	await expect(page.getByTestId('signing-import')).toBeVisible();
	await page.getByLabel('signing.key file').setInputFiles(file);
	await page.getByLabel('Passphrase for the signing key').fill(passphrase);
	await page.getByLabel('Repeat the passphrase').fill(passphrase);
	await page.getByRole('button', { name: 'Import key' }).click();
}

/** Imports the stack's own `signing.key`, which must be accepted. */
export async function importSigningKey(page: Page, inbox: InboxStack): Promise<void> {
	await submitSigningKey(page, signingKeyPath(inbox));
	await expect(page.getByTestId('signing-imported')).toBeVisible();
}

/** Unlocks the signing key wherever the page asks for it (after a reload). */
export async function unlockSigningKey(page: Page, passphrase = SIGNING_PASSPHRASE): Promise<void> {
	const form = page.getByTestId('signing-unlock');
	await form.getByLabel('Signing key passphrase').fill(passphrase);
	await form.getByRole('button', { name: 'Unlock signing key' }).click();
	await expect(form).toBeHidden();
}

/** Opens the roster page, signs the draft and waits until the service accepted it; returns its version. */
export async function signRoster(page: Page): Promise<number> {
	await adminTab(page, 'Roster');
	const draft = page.getByTestId('roster-draft');
	await expect(draft).toBeVisible();
	await expect(page.getByTestId('roster-sign').or(page.getByTestId('signing-unlock'))).toBeVisible();
	if (await page.getByTestId('signing-unlock').isVisible()) await unlockSigningKey(page);
	const version = Number(await draft.getAttribute('data-roster-version'));
	await page.getByTestId('roster-sign').click();
	await page.getByTestId('roster-confirm-sign').click();
	await expect(page.getByTestId('roster-accepted')).toHaveAttribute('data-roster-version', String(version));
	return version;
}

/** Creates an invitation link on the agents page and returns it. */
export async function inviteThroughPage(page: Page, displayName: string, role: 'agent' | 'admin' = 'agent'): Promise<string> {
	await adminTab(page, 'Agents');
	await page.getByLabel('Display name').fill(displayName);
	await page.getByLabel('Role').selectOption(role);
	await page.getByLabel('Link valid for').selectOption({ label: '1 day' });
	await page.getByRole('button', { name: 'Create invitation link' }).click();
	return page.getByTestId('agent-invitation-url').inputValue();
}

/**
 * The invited person, in a browser of their own: opens the link, chooses a username and password,
 * and makes their key. Returns their page and the chosen credentials.
 */
export async function joinWithLink(
	browser: Browser,
	url: string,
	username: string
): Promise<{ page: Page; account: { username: string; password: string } }> {
	const context = await browser.newContext();
	const page = await context.newPage();
	const account = { username, password: `password of ${username}` };
	await page.goto(url);
	await page.getByLabel('Username').fill(account.username);
	await page.getByLabel('Password', { exact: true }).fill(account.password);
	await page.getByLabel('Repeat the password').fill(account.password);
	await page.getByRole('button', { name: 'Join' }).click();
	await createKey(page, PASSPHRASE);
	return { page, account };
}
