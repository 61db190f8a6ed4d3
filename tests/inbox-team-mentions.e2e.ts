/**
 * Mentions in private notes (docs/inbox-api.md §4 "Mentions"): three agents who can all read a
 * conversation, each in their own browser; a note of Ada's mentions Ben, picked from the list `@`
 * opens. Ben alone is told — in the page, and on the desktop without a word of the note — and his
 * Mentions view shows it unread until he opens the conversation, also after a reload. Cy is told nothing.
 */
import type { Browser } from '@playwright/test';
import { expect, messages, openConversation, readyAgent, test, opensUnlocked, type InboxStack } from './support/inbox-e2e';
import { notified, recordNotifications } from './support/recorded-notifications';

/** An agent in a browser of their own, signed in with a key in the roster, desktop notifications on. */
async function notifiedAgent(browser: Browser, inbox: InboxStack, label: string) {
	const context = await browser.newContext({ baseURL: inbox.url });
	const page = await context.newPage();
	await recordNotifications(page, context, inbox.url);
	const agent = await readyAgent(page, inbox, label);
	await page.getByTestId('notification-settings').click();
	await page.getByTestId('notify-desktop').check();
	await expect(page.getByTestId('notify-desktop')).toBeChecked();
	await page.getByRole('dialog', { name: 'Notifications' }).getByRole('button', { name: 'Close' }).click();
	return { page, agent };
}

test('a note mentions an agent: only they are told, without its words, and their Mentions view shows it unread until they open it', async ({
	browser,
	inbox
}) => {
	// three agents, each making a key in a browser of their own before anything is mentioned
	test.slow();
	const ada = await notifiedAgent(browser, inbox, 'ada');
	const ben = await notifiedAgent(browser, inbox, 'ben');
	const cy = await notifiedAgent(browser, inbox, 'cy');
	const invitation = await inbox.invite(ada.agent);
	const customer = await inbox.customer(invitation);
	await customer.say('My parcel never arrived.');
	const { conversationId } = invitation;
	for (const { page } of [ben, cy]) await expect(page.locator(`a[data-conversation-id="${conversationId}"]`)).toBeVisible();

	// Ada writes a note; `@` offers the conversation's readers, the arrows move, Escape closes, Tab picks
	await openConversation(ada.page, conversationId);
	await ada.page.getByTestId('mode-note').click();
	const composer = ada.page.getByLabel('Message');
	await composer.fill('Courier lost it, ');
	await composer.press('End');
	await composer.pressSequentially('@');
	const options = ada.page.getByRole('listbox', { name: /Mention someone/ }).getByRole('option');
	await expect(options.filter({ hasText: `@${ben.agent.displayName}` })).toHaveCount(1);
	await expect(options.filter({ hasText: `@${cy.agent.displayName}` })).toHaveCount(1);
	await expect(options.filter({ hasText: `@${ada.agent.displayName}` })).toHaveCount(0);
	await composer.press('Escape');
	await expect(options).toHaveCount(0);
	await composer.press('Backspace');
	await composer.pressSequentially(`@${ben.agent.displayName}`);
	await expect(options.first()).toHaveText(`@${ben.agent.displayName}`);
	await expect(options.first()).toHaveAttribute('aria-selected', 'true');
	await expect(composer).toHaveAttribute('aria-activedescendant', 'mention-option-0');
	const count = await options.count();
	await composer.press('ArrowDown');
	await expect(options.nth(count > 1 ? 1 : 0)).toHaveAttribute('aria-selected', 'true');
	await composer.press('ArrowUp');
	await composer.press('Tab');
	await expect(composer).toHaveValue(`Courier lost it, @${ben.agent.displayName} `);
	await expect(options).toHaveCount(0);
	await composer.pressSequentially('please file the claim with ref ZX-9981.');
	await composer.press('Enter');
	await expect(ada.page.getByTestId('note').filter({ hasText: 'ZX-9981' })).toBeVisible();

	// Ben is told in the page and on the desktop, by name of the writer only
	const sentence = `${ada.agent.displayName} mentioned you in a conversation`;
	await expect(ben.page.getByTestId('mention-notice')).toContainText(sentence);
	await expect
		.poll(() => notified(ben.page))
		.toContainEqual({ title: `${ada.agent.displayName} mentioned you`, body: sentence, tag: conversationId });
	expect(JSON.stringify(await notified(ben.page))).not.toMatch(/ZX-9981|Courier|claim/);
	await expect(ben.page.getByTestId('mentions-unread')).toHaveText('1');
	await ben.page.locator('[data-view="mentions"]').click();
	const bensRow = ben.page.getByTestId('conversation-list').locator(`a[data-conversation-id="${conversationId}"]`);
	await expect(bensRow.getByTestId('row-mention')).toBeVisible();

	// Cy can read the conversation and hears its later events, but nothing of Ben's mention
	await ada.page.getByTestId('mode-reply').click();
	await composer.fill('We are on it.');
	await composer.press('Enter');
	await expect(messages(ada.page).filter({ hasText: 'We are on it.' })).toHaveAttribute('data-state', 'sent');
	await expect(cy.page.locator(`a[data-conversation-id="${conversationId}"]`)).toContainText('We are on it.');
	await expect(cy.page.getByTestId('mention-notice')).toHaveCount(0);
	await expect(cy.page.getByTestId('mentions-unread')).toHaveCount(0);
	expect(JSON.stringify(await notified(cy.page))).not.toContain('mentioned');
	await cy.page.locator('[data-view="mentions"]').click();
	await expect(cy.page.locator(`a[data-conversation-id="${conversationId}"]`)).toHaveCount(0);

	// Ben opens it: read, here and on the server (a reload shows it still listed, read)
	await bensRow.click();
	await expect(ben.page.getByTestId('thread')).toHaveAttribute('data-conversation-id', conversationId);
	await expect(ben.page.getByTestId('note').filter({ hasText: 'ZX-9981' })).toBeVisible();
	await expect(ben.page.getByTestId('mentions-unread')).toHaveCount(0);
	await expect(ben.page.getByTestId('mention-notice')).toHaveCount(0);
	await expect(bensRow.getByTestId('row-mention')).toHaveCount(0);
	await ben.page.goto('/inbox');
	await opensUnlocked(ben.page);
	await ben.page.locator('[data-view="mentions"]').click();
	await expect(ben.page.locator(`a[data-conversation-id="${conversationId}"]`)).toBeVisible();
	await expect(ben.page.getByTestId('mentions-unread')).toHaveCount(0);
	await expect(ben.page.getByTestId('row-mention')).toHaveCount(0);
});
