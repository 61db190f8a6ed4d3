/**
 * The team's inbox (docs/inbox-api.md §4): several agents, each in their own browser, work on the same
 * conversations and see what the others do.
 */
import type { Browser, Page } from '@playwright/test';
import { expect, messages, openConversation, readyAgent, test, unlock, type Agent, type InboxStack } from './support/inbox-e2e';

/** An agent in a browser context of their own, signed in with a key in the roster. */
async function agentInOwnBrowser(browser: Browser, inbox: InboxStack, label: string): Promise<{ page: Page; agent: Agent }> {
	const page = await (await browser.newContext({ baseURL: inbox.url })).newPage();
	return { page, agent: await readyAgent(page, inbox, label) };
}

test('every agent sees who sent each reply, in the thread and the list, also after a reload', async ({ browser, inbox }) => {
	const ada = await agentInOwnBrowser(browser, inbox, 'ada');
	const ben = await agentInOwnBrowser(browser, inbox, 'ben');
	const invitation = await inbox.invite(ada.agent);
	const customer = await inbox.customer(invitation);
	await customer.say('Where is my lamp?');

	await openConversation(ada.page, invitation.conversationId);
	const composer = ada.page.getByLabel('Message');
	await composer.fill('It ships today.');
	await composer.press('Enter');
	const adasReply = messages(ada.page).filter({ hasText: 'It ships today.' });
	await expect(adasReply).toHaveAttribute('data-state', 'sent');
	await expect(adasReply.getByTestId('message-author')).toHaveText('You');

	// Ben's list names Ada as the last sender, live
	const bensRow = ben.page.locator(`a[data-conversation-id="${invitation.conversationId}"]`);
	await expect(bensRow).toContainText(`${ada.agent.displayName}: It ships today.`);
	await openConversation(ben.page, invitation.conversationId);
	await expect(messages(ben.page).filter({ hasText: 'It ships today.' }).getByTestId('message-author')).toHaveText(ada.agent.displayName);
	await expect(messages(ben.page).filter({ hasText: 'Where is my lamp?' }).getByTestId('message-author')).toHaveCount(0);

	await ben.page.getByLabel('Message').fill('Tracking number follows.');
	await ben.page.getByLabel('Message').press('Enter');
	await expect(messages(ada.page).filter({ hasText: 'Tracking number follows.' }).getByTestId('message-author')).toHaveText(
		ben.agent.displayName
	);

	await ada.page.reload();
	await unlock(ada.page);
	await expect(ada.page.getByTestId('thread')).toHaveAttribute('data-conversation-id', invitation.conversationId);
	await expect(messages(ada.page).filter({ hasText: 'It ships today.' }).getByTestId('message-author')).toHaveText('You');
	await expect(messages(ada.page).filter({ hasText: 'Tracking number follows.' }).getByTestId('message-author')).toHaveText(
		ben.agent.displayName
	);
	await expect(ada.page.locator(`a[data-conversation-id="${invitation.conversationId}"]`)).toContainText(
		`${ben.agent.displayName}: Tracking number follows.`
	);
});
