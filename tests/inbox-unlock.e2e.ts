/**
 * Unlock once per browser session (docs/crypto-worker.md "Unlock once per browser session";
 * docs/threat-model.md "A stolen laptop"): a reload and a second tab open the inbox without the
 * passphrase, and the browser's raw storage then holds neither the server's share nor the agent's secret
 * key; a lock in one tab locks the other at once while the list and the unread count keep arriving; a
 * sign-out signs every tab out; and a browser closed for longer than the server's grace asks again.
 */
import { readFile } from 'node:fs/promises';
import type { BrowserContext, Page } from '@playwright/test';
import { createKey, expect, navLink, PASSPHRASE, readyAgent, signIn, test, unlock, type InboxStack } from './support/inbox-e2e';
import { rawOriginStorage, rawRecords } from './support/indexeddb';
import { leaks, openBackup } from './support/secrets';

/** Short enough that a closed browser is seen quickly, long enough for a reload on a busy machine. */
const GRACE_SECONDS = 8;
test.use({ inboxEnv: { UNLOCK_SHARE_GRACE_SECONDS: String(GRACE_SECONDS) } });

const keyGate = (page: Page) => page.getByTestId('key-gate');

/** The unlocked inbox: its navigation, and no key gate anywhere. */
async function expectUnlocked(page: Page): Promise<void> {
	await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
	await expect(keyGate(page)).toHaveCount(0);
}

/** The session's unlock share as the page's own requests get it (null when there is none). */
async function sessionShare(page: Page): Promise<string | null> {
	return page.evaluate(async () => ((await (await fetch('/api/session/unlock')).json()) as { share: string | null }).share);
}

/** The agent's secret key, read from a backup file made on the Key page and opened in Node. */
async function agentSecretKey(page: Page): Promise<Uint8Array> {
	await navLink(page, 'Key').click();
	await page.getByLabel('Your passphrase').fill(PASSPHRASE);
	await page.getByRole('button', { name: 'Make backup file' }).click();
	const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('backup-download').click()]);
	return (await openBackup(await readFile(await download.path(), 'utf8'), PASSPHRASE)).secretKey;
}

/** Every cookie of the context, HttpOnly ones included, as one text. */
async function cookieText(context: BrowserContext): Promise<string> {
	return JSON.stringify(await context.cookies());
}

async function customerWriting(inbox: InboxStack, agent: Parameters<InboxStack['invite']>[0], text: string) {
	const customer = await inbox.customer(await inbox.invite(agent));
	await customer.say(text);
	return customer;
}

test('a reload opens the inbox without the passphrase, and the raw storage holds neither the share nor the secret key', async ({
	page,
	inbox
}) => {
	const agent = await readyAgent(page, inbox, 'reload');
	const secretKey = await agentSecretKey(page);
	const share = await sessionShare(page);
	expect(share).toMatch(/^[A-Za-z0-9_-]{43}$/);

	await page.reload();
	await expectUnlocked(page);
	await navLink(page, 'Key').click();
	await expect(page.getByTestId('agent-key-id')).toHaveText((await inbox.account(agent.username)).agentKeyId as string);

	const storage = await rawOriginStorage(page);
	const keystore = `inbox-keystore:${agent.accountId}`;
	// the scan reads the key store: its sealed copy for the session's tabs, and the key's public half
	expect(storage.databases).toContain(keystore);
	expect((await rawRecords(page, keystore, 'unlock')).count).toBe(1);
	expect(storage.text).toContain((await inbox.account(agent.username)).agentPublicKey as string);
	const everything = storage.text + (await cookieText(page.context()));
	expect(leaks(everything, secretKey)).toEqual([]);
	expect(leaks(everything, new Uint8Array(Buffer.from(share as string, 'base64url')))).toEqual([]);
});

test('a second tab of the same browser opens unlocked; a lock in one locks the other at once, whose list and unread count keep arriving', async ({
	page,
	inbox
}) => {
	const agent = await readyAgent(page, inbox, 'tabs');
	await customerWriting(inbox, agent, 'Hello before the lock.');
	const second = await page.context().newPage();
	await second.goto('/inbox');
	await expectUnlocked(second);
	await expect(second.getByText('Hello before the lock.')).toBeVisible();

	await page.getByTestId('lock').click();
	await expect(keyGate(second)).toHaveAttribute('data-screen', 'unlock');
	await expect(keyGate(page)).toHaveAttribute('data-screen', 'unlock');
	await expect.poll(() => sessionShare(second)).toBeNull();
	// locked: the list stays, without the decrypted previews
	await expect(second.getByTestId('conversation-scroller')).toBeVisible();
	await expect(second.getByText('Hello before the lock.')).toHaveCount(0);

	const titleBefore = Number(/^\((\d+)\)/.exec(await second.title())?.[1] ?? 0);
	const customer = await customerWriting(inbox, agent, 'Written while locked.');
	await expect(second).toHaveTitle(`(${titleBefore + 1}) Locked · Inbox`);
	const row = second.locator(`[data-conversation-id="${customer.conversationId}"]`).first();
	await expect(row.getByTestId('unread-count')).toHaveText('1');
	await expect(second.getByText('Written while locked.')).toHaveCount(0);

	// unlocking one tab opens the other too, and the previews come back
	await unlock(second);
	await expectUnlocked(page);
	await expect(page.getByText('Written while locked.')).toBeVisible();
	await expect(page).toHaveTitle(/^(\(\d+\) )?Inbox$/);
	await second.close();
});

test('sign-out in one tab signs every tab out', async ({ page, inbox }) => {
	await readyAgent(page, inbox, 'signout');
	const second = await page.context().newPage();
	await second.goto('/inbox');
	await expectUnlocked(second);

	await page.getByTestId('logout').click();
	await expect(second).toHaveURL(/\/login/);
	await expect(page).toHaveURL(/\/login/);
	expect(await second.evaluate(async () => (await fetch('/api/session')).status)).toBe(401);
	await second.close();
});

test('a browser closed for longer than the grace asks for the passphrase again, with the same storage and session', async ({
	browser,
	inbox
}) => {
	const context = await browser.newContext({ baseURL: inbox.url });
	const page = await context.newPage();
	const agent = await inbox.createAgent('closed');
	await signIn(page, agent);
	await createKey(page);
	await expect.poll(() => sessionShare(page)).not.toBeNull();

	// every tab closed, the context — its cookies and IndexedDB — kept, as a browser's profile is
	const cookie = (await context.cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');
	await page.close();
	await expect
		.poll(
			async () =>
				((await (await fetch(`${inbox.url}/api/session/unlock`, { headers: { cookie } })).json()) as { share: string | null }).share,
			{ timeout: (GRACE_SECONDS + 60) * 1000 }
		)
		.toBeNull();

	const reopened = await context.newPage();
	await reopened.goto('/inbox');
	await expect(keyGate(reopened)).toHaveAttribute('data-screen', 'unlock');
	await expect(reopened.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
	await unlock(reopened);
	await context.close();
});
