/**
 * The team's inbox (docs/inbox-api.md §4): several agents, each in their own browser, work on the same
 * conversations and see what the others do.
 */
import type { Browser, Page } from '@playwright/test';
import {
	expect,
	messages,
	navLink,
	openConversation,
	readyAgent,
	screenshot,
	test,
	opensUnlocked,
	type Agent,
	type InboxStack
} from './support/inbox-e2e';

interface AgentBrowser {
	page: Page;
	agent: Agent;
}

/** An agent in a browser context of their own, signed in with a key in the roster. */
async function agentInOwnBrowser(browser: Browser, inbox: InboxStack, label: string): Promise<AgentBrowser> {
	const page = await (await browser.newContext({ baseURL: inbox.url })).newPage();
	return { page, agent: await readyAgent(page, inbox, label) };
}

/** Ada and Ben, each in their own browser, and a customer Ada invited who wrote `firstMessage`. */
async function teamWithCustomer(browser: Browser, inbox: InboxStack, firstMessage: string) {
	const ada = await agentInOwnBrowser(browser, inbox, 'ada');
	const ben = await agentInOwnBrowser(browser, inbox, 'ben');
	const invitation = await inbox.invite(ada.agent);
	const customer = await inbox.customer(invitation);
	await customer.say(firstMessage);
	return { ada, ben, invitation, customer };
}

test('every agent sees who sent each reply, in the thread and the list, also after a reload', async ({ browser, inbox }) => {
	const { ada, ben, invitation } = await teamWithCustomer(browser, inbox, 'Where is my lamp?');

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
	await opensUnlocked(ada.page);
	await expect(ada.page.getByTestId('thread')).toHaveAttribute('data-conversation-id', invitation.conversationId);
	await expect(messages(ada.page).filter({ hasText: 'It ships today.' }).getByTestId('message-author')).toHaveText('You');
	await expect(messages(ada.page).filter({ hasText: 'Tracking number follows.' }).getByTestId('message-author')).toHaveText(
		ben.agent.displayName
	);
	await expect(ada.page.locator(`a[data-conversation-id="${invitation.conversationId}"]`)).toContainText(
		`${ben.agent.displayName}: Tracking number follows.`
	);
});

test('agents assign conversations to themselves and each other; views, counts and the thread follow live', async ({ browser, inbox }) => {
	const { ada, ben, invitation } = await teamWithCustomer(browser, inbox, 'My order never came.');
	const row = (page: Page) => page.locator(`a[data-conversation-id="${invitation.conversationId}"]`);
	const viewCount = (page: Page, view: string) => page.locator(`[data-view="${view}"]`).getByTestId('view-count');
	await expect(row(ben.page)).toBeVisible();
	const unassignedBefore = Number(await viewCount(ben.page, 'unassigned').textContent());

	// Ada takes it with the keyboard
	await openConversation(ada.page, invitation.conversationId);
	await ada.page.getByTestId('messages').click();
	await ada.page.keyboard.press('a');
	await expect(ada.page.getByTestId('assignee')).toHaveValue(ada.agent.accountId);
	await expect(ada.page.getByTestId('activity-lines')).toContainText(`${ada.agent.displayName} took this conversation.`);

	// Ben's list shows it as Ada's at once, and the counts move
	await expect(row(ben.page).getByTestId('row-assignee')).toHaveText(ada.agent.displayName);
	await screenshot(ben.page, 'team-assignment');
	await expect(viewCount(ben.page, 'unassigned')).toHaveText(String(unassignedBefore - 1));
	await ben.page.locator('[data-view="mine"]').click();
	await expect(row(ben.page)).toHaveCount(0);
	await ben.page.locator('[data-view="unassigned"]').click();
	await expect(row(ben.page)).toHaveCount(0);
	await ben.page.locator('[data-view="all"]').click();
	await openConversation(ben.page, invitation.conversationId);

	// Ben gives it to himself with the picker; Ada's thread and list follow
	await ben.page.getByTestId('assignee').selectOption(ben.agent.accountId);
	await expect(ada.page.getByTestId('assignee')).toHaveValue(ben.agent.accountId);
	await expect(ada.page.getByTestId('activity-lines')).toContainText(`${ben.agent.displayName} took this conversation.`);
	await ada.page.locator('[data-view="mine"]').click();
	await expect(row(ada.page)).toHaveCount(0);
	await expect(viewCount(ben.page, 'mine')).toHaveText('1');

	// and unassigns it
	await ben.page.getByTestId('assignee').selectOption('');
	await expect(ada.page.getByTestId('activity-lines')).toContainText(`${ben.agent.displayName} unassigned ${ben.agent.displayName}.`);
	await ada.page.locator('[data-view="unassigned"]').click();
	await expect(row(ada.page)).toBeVisible();
});

test('private notes: written in the thread, read live by the other agent, never sent to the customer', async ({ browser, inbox }) => {
	const { ada, ben, invitation, customer } = await teamWithCustomer(browser, inbox, 'Can I get a refund?');
	await openConversation(ada.page, invitation.conversationId);
	await openConversation(ben.page, invitation.conversationId);

	await ada.page.getByTestId('mode-note').click();
	await expect(ada.page.getByTestId('attach')).toBeDisabled();
	const composer = ada.page.getByLabel('Message');
	await composer.fill('Refund approved by finance, ticket FIN-2231.');
	await composer.press('Enter');
	const adasNote = ada.page.getByTestId('note').filter({ hasText: 'FIN-2231' });
	await expect(adasNote.getByTestId('note-author')).toHaveText('You');
	await expect(composer).toHaveValue('');

	const bensNote = ben.page.getByTestId('note').filter({ hasText: 'Refund approved by finance, ticket FIN-2231.' });
	await expect(bensNote.getByTestId('note-author')).toHaveText(ada.agent.displayName);
	await expect(bensNote).toContainText('Private note');
	await screenshot(ben.page, 'team-note');

	// replies still go to the customer; the note never does
	await ada.page.getByTestId('mode-reply').click();
	await composer.fill('Your refund is on its way.');
	await composer.press('Enter');
	await expect(messages(ada.page).filter({ hasText: 'Your refund is on its way.' })).toHaveAttribute('data-state', 'sent');
	const atCustomer = (await customer.messages()).map((message) => message.text);
	expect(atCustomer).toContain('Your refund is on its way.');
	expect(atCustomer.join(' ')).not.toContain('FIN-2231');

	await ben.page.reload();
	await opensUnlocked(ben.page);
	await expect(ben.page.getByTestId('note').filter({ hasText: 'FIN-2231' }).getByTestId('note-author')).toHaveText(ada.agent.displayName);
});

test("the customer's name and contact notes, encrypted, reach every agent's list and thread live", async ({ browser, inbox }) => {
	const { ada, ben, invitation } = await teamWithCustomer(browser, inbox, 'Hello, it is Zoë.');
	await openConversation(ada.page, invitation.conversationId);
	await ada.page.getByRole('button', { name: 'Details' }).click();
	await ada.page.getByTestId('profile-name').fill('Zoë Quartermaine');
	await ada.page.getByTestId('profile-notes').fill('Prefers email. Order #4312.');
	await ada.page.getByTestId('profile-save').click();
	await expect(ada.page.getByTestId('thread-title')).toHaveText('Zoë Quartermaine');

	const bensRow = ben.page.locator(`a[data-conversation-id="${invitation.conversationId}"]`);
	await expect(bensRow.getByTestId('row-title')).toHaveText('Zoë Quartermaine');
	await ben.page.getByLabel('Search conversations').fill('quarter');
	await expect(bensRow).toBeVisible();
	await ben.page.getByLabel('Search conversations').fill('');
	await openConversation(ben.page, invitation.conversationId);
	await expect(ben.page.getByTestId('thread-title')).toHaveText('Zoë Quartermaine');
	await ben.page.getByRole('button', { name: 'Details' }).click();
	await expect(ben.page.getByTestId('profile-notes')).toHaveValue('Prefers email. Order #4312.');
	await expect(ben.page.getByTestId('profile-form')).toContainText(`Saved by ${ada.agent.displayName}`);
	await screenshot(ben.page, 'team-profile');
});

test('resolve with undo, reopen, snooze; a customer who writes again brings the conversation back for everyone', async ({
	browser,
	inbox
}) => {
	const { ada, ben, invitation, customer } = await teamWithCustomer(browser, inbox, 'Thanks, that is all.');
	const row = (page: Page) => page.locator(`a[data-conversation-id="${invitation.conversationId}"]`);
	await openConversation(ada.page, invitation.conversationId);
	await expect(row(ben.page)).toBeVisible();

	await ada.page.getByTestId('resolve').click();
	await expect(ada.page.getByTestId('team-state')).toHaveText('Resolved');
	await expect(row(ben.page)).toHaveCount(0);
	await ada.page.getByTestId('undo-resolve').click();
	await expect(ada.page.getByTestId('team-state')).toHaveCount(0);
	await expect(row(ben.page)).toBeVisible();

	await ada.page.getByTestId('resolve').click();
	await expect(ada.page.getByTestId('composer-warning')).toContainText('leaves it resolved');
	await ben.page.getByTestId('lifecycle-filter').selectOption('resolved');
	await expect(row(ben.page)).toBeVisible();
	await ben.page.getByTestId('lifecycle-filter').selectOption('open');
	await expect(row(ben.page)).toHaveCount(0);

	await customer.say('Actually, one more thing.');
	await expect(row(ben.page)).toBeVisible();
	await expect(ada.page.getByTestId('team-state')).toHaveCount(0);
	await expect(ada.page.getByTestId('activity-lines')).toContainText('The customer wrote again: the conversation is open.');

	await openConversation(ben.page, invitation.conversationId);
	await ben.page.getByTestId('snooze').selectOption({ label: 'For an hour' });
	await expect(ben.page.getByTestId('team-state')).toHaveAttribute('data-state', 'snoozed');
	await expect(ada.page.getByTestId('team-state')).toContainText('Snoozed until');
	await ada.page.getByTestId('reopen').click();
	await expect(ben.page.getByTestId('team-state')).toHaveCount(0);
	await expect(ben.page.getByTestId('activity-lines')).toContainText(`${ada.agent.displayName} reopened this conversation.`);

	// any time: the picker refuses a time past, and snoozes until the time picked, in the agent's time zone
	await expect(ben.page.getByTestId('snooze').locator('option')).toContainText(['For 30 minutes', 'Pick a date and time…']);
	await ben.page.getByTestId('snooze').selectOption({ label: 'Pick a date and time…' });
	const picker = ben.page.getByTestId('snooze-picker');
	await picker.getByTestId('snooze-at').fill('2020-01-01T10:00');
	await picker.getByTestId('snooze-confirm').click();
	await expect(picker.getByRole('alert')).toHaveText('Pick a time in the future.');
	const { local, iso } = await ben.page.evaluate(() => {
		const at = new Date();
		at.setDate(at.getDate() + 3);
		at.setHours(14, 30, 0, 0);
		const pad = (n: number) => String(n).padStart(2, '0');
		return {
			local: `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T14:30`,
			iso: at.toISOString()
		};
	});
	await picker.getByTestId('snooze-at').fill(local);
	await screenshot(ben.page, 'snooze-picker');
	await picker.getByTestId('snooze-confirm').click();
	await expect(picker).toHaveCount(0);
	await expect(ada.page.getByTestId('team-state')).toHaveAttribute('data-state', 'snoozed');
	const admin = await inbox.admin();
	const snoozed = await admin.call<{ snoozedUntil: string }>('GET', `/api/conversations/${invitation.conversationId}`);
	expect(new Date(snoozed.snoozedUntil).toISOString()).toBe(iso);
	await ada.page.getByTestId('reopen').click();
	await expect(ben.page.getByTestId('team-state')).toHaveCount(0);
});

test('agents see who else is viewing or typing, and sending asks first when someone else replied meanwhile', async ({ browser, inbox }) => {
	const { ada, ben, invitation, customer } = await teamWithCustomer(browser, inbox, 'Is anyone there?');
	await openConversation(ada.page, invitation.conversationId);
	await openConversation(ben.page, invitation.conversationId);
	await expect(ada.page.getByTestId('presence')).toHaveText(`${ben.agent.displayName} is viewing`);

	const bensComposer = ben.page.getByLabel('Message');
	await bensComposer.pressSequentially('Yes, I am here');
	await expect(ada.page.getByTestId('presence')).toHaveText(`${ben.agent.displayName} is typing…`);
	// from then on Ada's page notes each presence line it shows (none: the line is gone)
	await ada.page.evaluate(() => {
		const shown: string[] = [];
		(window as unknown as { presenceLines: string[] }).presenceLines = shown;
		new MutationObserver(() => shown.push(document.querySelector('[data-testid=presence]')?.textContent?.trim() ?? 'none')).observe(
			document.body,
			{ subtree: true, childList: true, characterData: true }
		);
	});
	await bensComposer.press('Enter');
	await expect(messages(ada.page).filter({ hasText: 'Yes, I am here' })).toBeVisible();
	// his message ends his typing at once: he is viewing, never gone from the line while the indicator times out
	await expect(ada.page.getByTestId('presence')).toHaveText(`${ben.agent.displayName} is viewing`);
	const lines = await ada.page.evaluate(() => (window as unknown as { presenceLines: string[] }).presenceLines);
	expect(lines.slice(0, lines.indexOf(`${ben.agent.displayName} is viewing`))).not.toContain('none');

	const adasComposer = ada.page.getByLabel('Message');
	await adasComposer.fill('Hello, how can I help?');
	await adasComposer.press('Enter');
	const collision = ada.page.getByTestId('collision');
	await expect(collision).toContainText(`${ben.agent.displayName} replied since you opened this conversation`);
	await expect(ada.page.getByTestId('send')).toHaveText('Waiting for your answer…');
	await screenshot(ada.page, 'team-collision');
	await collision.getByRole('button', { name: 'Cancel' }).click();
	await expect(adasComposer).toHaveValue('Hello, how can I help?');
	await adasComposer.press('Enter');
	await ada.page.getByTestId('send-anyway').click();
	await expect(messages(ada.page).filter({ hasText: 'Hello, how can I help?' })).toHaveAttribute('data-state', 'sent');
	await expect.poll(async () => (await customer.messages()).filter((message) => message.senderType === 'company').length).toBe(2);

	// Ben leaves the conversation for the list: he says so, and Ada no longer sees him
	await navLink(ben.page, 'Inbox').click();
	await expect(ben.page.getByTestId('thread')).toHaveCount(0);
	await expect(ada.page.getByTestId('presence')).toHaveCount(0);
});

test('labels set in the thread show on every agent’s list at once and filter it', async ({ browser, inbox }) => {
	const admin = await inbox.admin();
	const urgent = await admin.call<{ labelId: string }>('POST', '/api/admin/labels', { name: `Urgent ${Date.now()}`, color: 'red' });
	const { ada, ben, invitation } = await teamWithCustomer(browser, inbox, 'My lamp is on fire');
	await openConversation(ada.page, invitation.conversationId);
	await ada.page.getByTestId('label-picker').locator('summary').click();
	const picker = ada.page.getByTestId('label-picker');
	await picker
		.locator('label', { has: ada.page.locator(`[data-label-id="${urgent.labelId}"]`) })
		.getByTestId('label-option')
		.check();

	const bensRow = ben.page.locator(`a[data-conversation-id="${invitation.conversationId}"]`);
	await expect(bensRow.locator(`[data-label-id="${urgent.labelId}"]`)).toBeVisible();
	await ben.page.getByTestId('label-filter').selectOption(urgent.labelId);
	await expect(bensRow).toBeVisible();
	await expect(ben.page.locator('a[data-conversation-id]')).toHaveCount(1);

	await admin.call('DELETE', `/api/admin/labels/${urgent.labelId}`);
	await expect(ada.page.getByTestId('thread').locator(`[data-label-id="${urgent.labelId}"]`)).toHaveCount(0);
});

test('canned replies: the team’s and one’s own, inserted with / and filled in with the names', async ({ browser, inbox }) => {
	const admin = await inbox.admin();
	const shortcut = `thanks${Date.now().toString(36)}`;
	await admin.call('POST', '/api/canned-replies', { scope: 'team', shortcut, body: 'Thank you, {{customer.name}}! — {{agent.name}}' });
	const { ada, invitation, customer } = await teamWithCustomer(browser, inbox, 'Got it, thanks');

	await navLink(ada.page, 'Replies').click();
	await ada.page.getByLabel('Shortcut').fill('track');
	await ada.page.getByLabel('Reply').fill('Your tracking number is on its way.');
	await ada.page.getByTestId('canned-add').click();
	await expect(ada.page.getByTestId('canned-reply').filter({ hasText: '/track' })).toContainText('Me');
	await expect(ada.page.getByTestId('canned-reply').filter({ hasText: `/${shortcut}` })).toContainText('Team');

	await navLink(ada.page, 'Inbox').click();
	await openConversation(ada.page, invitation.conversationId);
	await ada.page.getByRole('button', { name: 'Details' }).click();
	await ada.page.getByTestId('profile-name').fill('Zoë');
	await ada.page.getByTestId('profile-save').click();
	await expect(ada.page.getByTestId('thread-title')).toHaveText('Zoë');
	await ada.page.getByRole('button', { name: 'Details' }).click();

	const composer = ada.page.getByLabel('Message');
	await composer.pressSequentially(`/${shortcut.slice(0, 4)}`);
	await expect(ada.page.getByTestId('canned-suggestion')).toHaveCount(1);
	await screenshot(ada.page, 'team-canned-replies');
	await composer.press('Enter');
	await expect(composer).toHaveValue(`Thank you, Zoë! — ${ada.agent.displayName}`);
	await composer.press('Enter');
	await expect
		.poll(async () => (await customer.messages()).map((message) => message.text))
		.toContain(`Thank you, Zoë! — ${ada.agent.displayName}`);
	await composer.pressSequentially('/tr');
	await ada.page.getByTestId('canned-suggestion').filter({ hasText: '/track' }).click();
	await expect(composer).toHaveValue('Your tracking number is on its way.');
});

test('a name and a note written with the invitation reach the team, encrypted, when the customer joins', async ({ browser, inbox }) => {
	const ada = await agentInOwnBrowser(browser, inbox, 'ada');
	const ben = await agentInOwnBrowser(browser, inbox, 'ben');
	await navLink(ada.page, 'Invite').click();
	await ada.page.getByTestId('invite-name').fill('Mila Novak');
	await ada.page.getByTestId('invite-note').fill('Asked about returns at the fair.');
	await ada.page.getByTestId('create-invitation').click();
	const invitation = ada.page.getByTestId('invitation').first();
	const link = await invitation.getByTestId('invitation-link').inputValue();
	const conversationId = (await invitation.getAttribute('data-conversation-id')) as string;
	await expect(ada.page.getByTestId('invite-name')).toHaveValue('');

	await inbox.customer({ link });
	const bensRow = ben.page.locator(`a[data-conversation-id="${conversationId}"]`);
	await expect(bensRow.getByTestId('row-title')).toHaveText('Mila Novak');
	await openConversation(ben.page, conversationId);
	await ben.page.getByRole('button', { name: 'Details' }).click();
	await expect(ben.page.getByTestId('profile-notes')).toHaveValue('Asked about returns at the fair.');
	await expect(ben.page.getByTestId('profile-form')).toContainText(`Saved by ${ada.agent.displayName}`);
});

test("linked conversations of one customer show in each other's details, for every agent", async ({ browser, inbox }) => {
	const { ada, ben, invitation } = await teamWithCustomer(browser, inbox, 'First order');
	const second = await inbox.invite(ada.agent);
	const again = await inbox.customer(second);
	await again.say('Second order, new phone');

	await openConversation(ada.page, invitation.conversationId);
	await ada.page.getByRole('button', { name: 'Details' }).click();
	await ada.page.getByTestId('profile-name').fill('Otto Lind');
	await ada.page.getByTestId('profile-save').click();
	await expect(ada.page.getByTestId('thread-title')).toHaveText('Otto Lind');

	await openConversation(ada.page, second.conversationId);
	await ada.page.getByRole('button', { name: 'Details' }).click();
	await ada.page.getByTestId('link-to').selectOption({ label: 'Otto Lind' });
	await expect(ada.page.getByTestId('linked-conversation')).toHaveText(['Otto Lind']);

	await openConversation(ben.page, invitation.conversationId);
	await ben.page.getByRole('button', { name: 'Details' }).click();
	await expect(ben.page.getByTestId('linked-conversation')).toHaveCount(1);
	await ben.page.getByTestId('linked-conversation').click();
	await expect(ben.page.getByTestId('thread')).toHaveAttribute('data-conversation-id', second.conversationId);
});
