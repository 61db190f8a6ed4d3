/**
 * Fair assignment (docs/inbox-api.md §4 "Availability", "Round-robin"): an admin turns the round-robin
 * on in the page; each conversation a customer writes to goes to the next online agent who can read it,
 * in turn, never to one who said they are away, and the thread says why. A team (§4 "Teams") made in the
 * page has its own view and count, its conversations go to its members alone, and the report has its row.
 * The file has a stack of its own: the team's setting and the admin's key stay out of the other files' inbox.
 */
import type { Browser, Page } from '@playwright/test';
import { adminTab } from './support/admin-e2e';
import {
	ADMIN,
	createKey,
	expect,
	openConversation,
	readyAgent,
	screenshot,
	signIn,
	test,
	type Agent,
	type InboxStack
} from './support/inbox-e2e';

test.use({ inboxEnv: { INBOX_E2E_STACK: 'round-robin' } });

async function agentInOwnBrowser(browser: Browser, inbox: InboxStack, label: string): Promise<{ page: Page; agent: Agent }> {
	const page = await (await browser.newContext({ baseURL: inbox.url })).newPage();
	return { page, agent: await readyAgent(page, inbox, label) };
}

test('round-robin gives each conversation a customer writes to the next online agent, in turn, and none to an agent away; a team’s go to its members', async ({
	browser,
	page,
	inbox
}) => {
	test.setTimeout(240_000);
	const [ada, ben, cy, dee] = [
		await agentInOwnBrowser(browser, inbox, 'ada'),
		await agentInOwnBrowser(browser, inbox, 'ben'),
		await agentInOwnBrowser(browser, inbox, 'cy'),
		await agentInOwnBrowser(browser, inbox, 'dee')
	];
	// Dee says she is away: her avatar shows it
	const deesStatus = dee.page.getByTestId('availability');
	await expect(deesStatus).toHaveAttribute('data-availability', 'online');
	await deesStatus.click();
	await expect(deesStatus).toHaveAttribute('data-availability', 'away');
	await expect(deesStatus).toHaveAttribute('aria-pressed', 'true');

	// the admin turns the round-robin on in the Policies tab
	await signIn(page, ADMIN);
	await createKey(page);
	await adminTab(page, 'Policies');
	await page.getByTestId('round-robin').check();
	await expect(page.getByTestId('round-robin')).toBeChecked();
	await page.reload();
	await expect(page.getByTestId('round-robin')).toBeChecked();
	await screenshot(page, 'round-robin-policy');

	const admin = await inbox.admin();
	const online = [ada, ben, cy].map(({ agent }) => agent.accountId);
	await expect
		.poll(async () => {
			const { data } = await admin.call<{ data: { accountId: string; role: string; availability: string }[] }>('GET', '/api/team');
			return data.filter((member) => member.role === 'agent' && member.availability === 'online').map((member) => member.accountId);
		})
		.toEqual(expect.arrayContaining(online));

	const conversations: string[] = [];
	for (let n = 1; n <= 6; n++) {
		const invitation = await inbox.invite(ada.agent);
		const customer = await inbox.customer(invitation);
		await customer.say(`Order ${n} never came`);
		conversations.push(invitation.conversationId);
	}
	const assignees = async () =>
		Promise.all(
			conversations.map(
				async (id) =>
					(await admin.call<{ assignee: { accountId: string } | null }>('GET', `/api/conversations/${id}`)).assignee?.accountId ?? null
			)
		);
	await expect.poll(async () => (await assignees()).every((id) => id !== null), { timeout: 30_000 }).toBe(true);
	const given = await assignees();
	// in turn: two each for the three online agents, none for Dee
	expect(online.map((id) => given.filter((assignee) => assignee === id).length)).toEqual([2, 2, 2]);
	expect(given).not.toContain(dee.agent.accountId);

	// Ben's thread says why it is his; his picker shows who is away
	const bens = conversations[given.indexOf(ben.agent.accountId)];
	await openConversation(ben.page, bens);
	await expect(ben.page.getByTestId('activity-lines')).toContainText(
		`Assigned to ${ben.agent.displayName} by round-robin: online, and their turn.`
	);
	await expect(ben.page.getByTestId('assignee')).toHaveValue(ben.agent.accountId);
	await expect(ben.page.getByTestId('assignee').locator(`option[value="${dee.agent.accountId}"]`)).toHaveAttribute(
		'data-availability',
		'away'
	);
	await expect(ben.page.getByTestId('assignee').locator(`option[value="${dee.agent.accountId}"]`)).toContainText('away');
	await screenshot(ben.page, 'round-robin-thread');

	// Dee is back: the next conversation may be hers
	await deesStatus.click();
	await expect(deesStatus).toHaveAttribute('data-availability', 'online');

	// the admin makes a team of Ben and Cy in the Policies tab (docs/inbox-api.md §4 "Teams")
	const teams = page.getByTestId('teams-settings');
	await teams.getByTestId('team-name').fill('Billing');
	for (const member of [ben, cy]) await teams.getByRole('checkbox', { name: member.agent.displayName }).check();
	await teams.getByTestId('team-save').click();
	await expect(teams.locator('[data-team="Billing"]')).toContainText(`${ben.agent.displayName}, ${cy.agent.displayName}`);
	await teams.scrollIntoViewIfNeeded();
	await screenshot(page, 'teams-policy');

	// Ada gives a new conversation to Billing before the customer writes: her list has the team's view, counted
	const invitation = await inbox.invite(ada.agent);
	const customer = await inbox.customer(invitation);
	const billing = invitation.conversationId;
	await openConversation(ada.page, billing);
	const teamPicker = ada.page.getByTestId('team');
	await teamPicker.selectOption({ label: 'Billing' });
	await expect(ada.page.getByTestId('activity-lines')).toContainText(
		`${ada.agent.displayName} gave this conversation to the team Billing.`
	);
	const byTeam = ada.page.getByTestId('view-by-team');
	await expect(byTeam.locator('option', { hasText: 'Billing' })).toHaveText('Billing (1)');
	await byTeam.selectOption({ label: 'Billing (1)' });
	await expect(ada.page.getByTestId('conversation-list').locator('[data-conversation-id]')).toHaveCount(1);
	await expect(ada.page.getByTestId('conversation-list').locator(`[data-conversation-id="${billing}"]`)).toBeVisible();

	// the customer writes: the round-robin gives it to the team's members only, and says so
	await customer.say('I was charged twice');
	const assigneeOf = async () =>
		(await admin.call<{ assignee: { accountId: string } | null }>('GET', `/api/conversations/${billing}`)).assignee?.accountId ?? null;
	await expect.poll(assigneeOf, { timeout: 30_000 }).not.toBeNull();
	const taken = await assigneeOf();
	expect([ben.agent.accountId, cy.agent.accountId]).toContain(taken);
	const teamMember = taken === ben.agent.accountId ? ben : cy;
	await openConversation(teamMember.page, billing);
	await expect(teamMember.page.getByTestId('activity-lines')).toContainText(
		`Assigned to ${teamMember.agent.displayName} by round-robin in Billing: online, and their turn.`
	);
	await expect(teamMember.page.getByTestId('team')).toHaveValue(/^team_/);
	await screenshot(teamMember.page, 'teams-thread');

	// the admin's report has the team's row, counted from what happened here
	await page.goto('/reports');
	const row = page.getByTestId('report-by-team').locator('tbody tr', { hasText: 'Billing' });
	await expect(row.locator('[data-figure="messagesIn"]')).toHaveText('1');
	await expect(row.locator('[data-figure="opened"]')).toHaveText('1');
});
