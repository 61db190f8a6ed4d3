/**
 * The agent's everyday comfort (docs/crypto-worker.md "Drafts", docs/inbox-api.md §11 "Notifications"): drafts that
 * survive switching and reloading, notifications that say nothing of the content.
 */
import type { Page } from '@playwright/test';
import { rawRecords } from './support/indexeddb';
import { notified as notifiedIn, recordNotifications } from './support/recorded-notifications';
import { expect, openConversation, readyAgent, screenshot, signIn, test, opensUnlocked, unlock } from './support/inbox-e2e';

/** Every value of the account's drafts store, as raw IndexedDB gives it, serialized. */
const rawDrafts = async (page: Page, accountId: string) => (await rawRecords(page, `inbox-keystore:${accountId}`, 'drafts')).text;

test('a draft stays with its conversation across switching and reloading, sealed at rest, and goes when sent or at sign-out', async ({
	page,
	inbox
}) => {
	const agent = await readyAgent(page, inbox, 'drafter');
	const lampInvitation = await inbox.invite(agent);
	await (await inbox.customer(lampInvitation)).say('Where is my lamp?');
	const chairInvitation = await inbox.invite(agent);
	await (await inbox.customer(chairInvitation)).say('The chair wobbles.');
	const composer = page.getByLabel('Message');

	await openConversation(page, lampInvitation.conversationId);
	await composer.fill('Your lamp left our warehouse');
	await openConversation(page, chairInvitation.conversationId);
	await expect(composer).toHaveValue('');
	await page.getByTestId('mode-note').click();
	await composer.fill('Ask for a photo of the legs');
	await openConversation(page, lampInvitation.conversationId);
	await expect(composer).toHaveValue('Your lamp left our warehouse');
	await expect(page.getByTestId('mode-reply')).toHaveAttribute('aria-pressed', 'true');
	// each row with a draft says so
	const draftMarker = (conversationId: string) => page.locator(`[data-conversation-id="${conversationId}"]`).getByTestId('row-draft');
	await expect(draftMarker(chairInvitation.conversationId)).toHaveText('Draft');
	await expect(draftMarker(lampInvitation.conversationId)).toHaveText('Draft');
	await screenshot(page, 'drafts');

	await expect.poll(() => rawDrafts(page, agent.accountId)).toContain(chairInvitation.conversationId);
	const stored = await rawDrafts(page, agent.accountId);
	expect(stored).toContain(lampInvitation.conversationId);
	for (const word of ['lamp', 'warehouse', 'photo', 'legs']) expect(stored).not.toContain(word);

	await page.reload();
	await opensUnlocked(page);
	await expect(page.getByTestId('thread')).toHaveAttribute('data-conversation-id', lampInvitation.conversationId);
	await expect(composer).toHaveValue('Your lamp left our warehouse');
	await composer.press('Enter');
	await expect(page.getByTestId('thread').getByTestId('message').filter({ hasText: 'Your lamp left our warehouse' })).toHaveAttribute(
		'data-state',
		'sent'
	);
	await expect(composer).toHaveValue('');
	await expect.poll(() => rawDrafts(page, agent.accountId)).not.toContain(lampInvitation.conversationId);
	await expect(draftMarker(lampInvitation.conversationId)).toHaveCount(0);
	await expect(draftMarker(chairInvitation.conversationId)).toHaveText('Draft');

	await openConversation(page, chairInvitation.conversationId);
	await expect(composer).toHaveValue('Ask for a photo of the legs');
	await expect(page.getByTestId('mode-note')).toHaveAttribute('aria-pressed', 'true');

	await page.getByTestId('logout').click();
	await signIn(page, agent);
	await unlock(page);
	await openConversation(page, chairInvitation.conversationId);
	await expect(composer).toHaveValue('');
	expect(await rawDrafts(page, agent.accountId)).toBe('[]');
});

test('the tab counts unread conversations; opted-in notifications and sound tell of new ones without their content', async ({
	page,
	context,
	inbox
}) => {
	await recordNotifications(page, context, inbox.url);
	const agent = await readyAgent(page, inbox, 'notified');
	// earlier tests on this stack may have left unread conversations, which the new roster's grant job
	// opens to this agent one by one: count from once it is over and the title has stopped changing
	await inbox.grantsSettled();
	await expect(page).toHaveTitle(/^(\(\d+\) )?Inbox$/);
	let title = '';
	for (let reads = 0; reads < 30 && title !== (await page.title()); reads++) {
		title = await page.title();
		await page.waitForTimeout(500);
	}
	const unreadBefore = Number(/^\((\d+)\)/.exec(title)?.[1] ?? 0);

	await page.getByTestId('notification-settings').click();
	await page.getByTestId('notify-desktop').check();
	await page.getByTestId('notify-sound').check();
	await expect(page.getByTestId('notify-desktop')).toBeChecked();
	expect(await page.evaluate(() => window.tones)).toBeGreaterThan(0);
	await screenshot(page, 'notifications');
	await page.getByRole('dialog', { name: 'Notifications' }).getByRole('button', { name: 'Close' }).click();

	const invitation = await inbox.invite(agent);
	const customer = await inbox.customer(invitation);
	const notified = () => notifiedIn(page);
	await expect.poll(notified).toContainEqual({
		title: 'New conversation',
		body: 'A customer started a conversation. Open the inbox to read it.',
		tag: invitation.conversationId
	});
	const tonesBefore = await page.evaluate(() => window.tones);
	await customer.say('My lamp flickers');
	await expect
		.poll(notified)
		.toContainEqual({ title: 'New message from a customer', body: 'Open the inbox to read it.', tag: invitation.conversationId });
	expect(JSON.stringify(await notified())).not.toMatch(/lamp|flickers/);
	expect(await page.evaluate(() => window.tones)).toBeGreaterThan(tonesBefore);
	await expect(page).toHaveTitle(`(${unreadBefore + 1}) Inbox`);
	expect(decodeURIComponent((await page.locator('link[rel="icon"]').getAttribute('href')) ?? '')).toContain(
		`>${unreadBefore + 1 > 9 ? '9+' : unreadBefore + 1}</text>`
	);

	// the notification opens its conversation; read, the count goes
	await page.evaluate(() => window.notified.at(-1)?.notification.dispatchEvent(new Event('click')));
	await expect(page.getByTestId('thread')).toHaveAttribute('data-conversation-id', invitation.conversationId);
	await expect(page).toHaveTitle(new RegExp(`^${unreadBefore ? `\\(${unreadBefore}\\) ` : ''}Customer \\S+ \\S+ · Inbox$`));

	// the conversation on screen is not announced; the settings stay with the agent
	const count = (await notified()).length;
	await customer.say('Still flickering');
	await expect(page.getByTestId('thread').getByTestId('message').filter({ hasText: 'Still flickering' })).toBeVisible();
	expect(await notified()).toHaveLength(count);
	await page.reload();
	await opensUnlocked(page);
	await page.getByTestId('notification-settings').click();
	await expect(page.getByTestId('notify-desktop')).toBeChecked();
	await expect(page.getByTestId('notify-sound')).toBeChecked();
});

test('desktop notifications the browser refuses are shown off, with the reason', async ({ page, inbox }) => {
	await page.addInitScript(() => {
		// The browser's prompt answered "Block".
		Object.defineProperty(Notification, 'permission', { get: () => 'default', configurable: true });
		Object.defineProperty(Notification, 'requestPermission', { value: async () => 'denied', configurable: true });
	});
	await readyAgent(page, inbox, 'refused-notifications');
	await page.getByTestId('notification-settings').click();
	await page.getByTestId('notify-desktop').click();
	await expect(page.getByTestId('notify-denied')).toBeVisible();
	await expect(page.getByTestId('notify-desktop')).not.toBeChecked();
});
