/**
 * Service targets (docs/service-targets.md): an admin sets a first-reply target in the Policies tab (a
 * value that is no number is refused before anything is sent); an agent's row counts down to it, turns
 * overdue under the page's controlled clock, the views "Due within 1 h" and "Overdue" gather it, and
 * the reply takes the deadline away. Outside business hours a customer gets the away reply (docs/service-targets.md
 * "Away reply"), once. The file has a stack of its own: the team's settings stay out of the other files' inbox.
 */
import { adminTab } from './support/admin-e2e';
import { WEEKDAYS } from '../src/lib/client/service-targets-form';
import { ADMIN, createKey, expect, openConversation, readyAgent, screenshot, signIn, test } from './support/inbox-e2e';

test.use({ inboxEnv: { INBOX_E2E_STACK: 'service-targets' } });

test('a first-reply target counts down on the row, turns overdue as the clock passes it, a reply ends it; outside business hours the away reply goes out once', async ({
	browser,
	page,
	inbox
}) => {
	test.setTimeout(240_000);
	// the agent's page runs on a clock the test moves; it starts at the real time and flows on from there
	const context = await browser.newContext({ baseURL: inbox.url });
	await context.clock.install();
	const agentPage = await context.newPage();
	const ada = await readyAgent(agentPage, inbox, 'ada');

	await signIn(page, ADMIN);
	await createKey(page);
	await adminTab(page, 'Policies');
	const form = page.getByTestId('service-targets-settings');
	await form.getByTestId('targets-enabled').check();
	await form.getByTestId('target-first-response').fill('soon');
	await form.getByTestId('targets-save').click();
	await expect(form.getByTestId('targets-error')).toContainText('First reply within must be a whole number of minutes');
	await expect(form.getByTestId('targets-error')).toHaveAttribute('data-code', 'INVALID_REQUEST');
	await form.getByTestId('target-first-response').fill('2');
	await form.getByTestId('target-resolution').fill('');
	await form.getByTestId('targets-save').click();
	await expect(form.getByTestId('targets-saved')).toBeVisible();
	await page.reload();
	await expect(page.getByTestId('target-first-response')).toHaveValue('2');
	await page.getByTestId('service-targets-settings').scrollIntoViewIfNeeded();
	await screenshot(page, 'service-targets-policy');

	const invitation = await inbox.invite(ada);
	const customer = await inbox.customer(invitation);
	const wroteAt = Date.now();
	await customer.say('Where is my parcel?');
	const row = agentPage.locator(`[data-conversation-id="${invitation.conversationId}"]`);
	const due = row.getByTestId('row-due');
	await expect(due).toHaveAttribute('data-due-state', 'breaching');
	await expect(due).toHaveText(/^Reply due in [12] min$/);
	await expect(agentPage.getByTestId('service-view-breaching')).toContainText('Due within 1 h 1');
	await expect(agentPage.getByTestId('service-view-overdue')).toContainText('Overdue 0');

	// three minutes pass: the target is missed, and the list says so without a reload
	await context.clock.fastForward('03:00');
	await expect(due).toHaveAttribute('data-due-state', 'overdue');
	await expect(due).toHaveText(/^Reply overdue by [12] min$/);
	await expect(agentPage.getByTestId('service-view-overdue')).toContainText('Overdue 1');
	await expect(agentPage.getByTestId('service-view-breaching')).toContainText('Due within 1 h 0');
	await agentPage.getByTestId('service-view-overdue').click();
	await expect(agentPage.getByTestId('conversation-list').locator('[data-conversation-id]')).toHaveCount(1);
	// the jump looks like a laptop waking up: the live stream reconnects first
	await expect(agentPage.getByText('Reconnecting to the inbox server')).toHaveCount(0, { timeout: 30_000 });
	await screenshot(agentPage, 'service-targets-overdue');

	// the reply answers the customer: no target is left (the resolution has none)
	await openConversation(agentPage, invitation.conversationId);
	const composer = agentPage.getByLabel('Message');
	await composer.fill('It left our warehouse this morning.');
	await composer.press('Enter');
	await expect(due).toHaveCount(0);
	const answeredWithin = Date.now() - wroteAt;
	await expect(agentPage.getByTestId('service-view-overdue')).toContainText('Overdue 0');

	// the report counts that first reply against the target by the server's clock, which the page's jump did not move
	await page.goto('/reports');
	const met = page.getByTestId('report-targets').locator('tr[data-key="overall"] td').first();
	if (answeredWithin < 110_000) await expect(met).toHaveText('100% (1 of 1)');
	else await expect(met).toHaveText(/^(100% \(1 of 1\)|0% \(0 of 1\))$/);
	await adminTab(page, 'Policies');

	// the admin sets business hours and the away reply: a customer who writes now, outside them, gets it once
	// the team is open only three days from today, in UTC: now it is away
	const today = (new Date().getUTCDay() + 6) % 7;
	await form.getByTestId('hours-enabled').check();
	await form.getByTestId('hours-zone').fill('UTC');
	for (const [index, weekday] of WEEKDAYS.entries()) {
		await form.getByRole('checkbox', { name: weekday, exact: true }).setChecked(index === (today + 3) % 7);
	}
	const text = 'Thanks for writing! We are closed now and answer on our next working day.';
	await form.getByTestId('away-enabled').check();
	await form.getByTestId('away-text').fill(text);
	await expect(form.getByText('write nothing in it you would not show the server')).toBeVisible();
	await form.getByTestId('targets-save').click();
	await expect(form.getByTestId('targets-saved')).toBeVisible();
	await screenshot(page, 'away-reply-policy');

	const later = await inbox.invite(ada);
	const writer = await inbox.customer(later);
	await writer.say('Hello, is anyone there?');
	const companyTexts = async () =>
		(await writer.messages()).filter((message) => message.senderType === 'company').map((message) => message.text);
	await expect.poll(companyTexts, { timeout: 30_000 }).toEqual([text]);
	await writer.say('My order number is 4711.');

	await agentPage.getByTestId('service-view-overdue').click(); // every conversation again
	await openConversation(agentPage, later.conversationId);
	const away = agentPage.getByTestId('thread').getByTestId('message').filter({ hasText: text });
	await expect(away.getByTestId('message-author')).toHaveText('Away reply');
	await expect(agentPage.getByTestId('thread').getByTestId('message')).toHaveCount(3);
	await screenshot(agentPage, 'away-reply-thread');
	// the team clock looks again every 15 s: still the one reply in this closed stretch
	await page.waitForTimeout(16_000);
	expect(await companyTexts()).toEqual([text]);
	await context.close();
});
