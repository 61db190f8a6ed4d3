/**
 * Accessibility (docs/inbox-api.md §11 "Accessibility"): axe-core finds no serious or critical
 * violation of WCAG 2.1 A/AA on the sign-in, key, inbox, thread, admin and reports pages; each page has its
 * landmarks; a failed sign-in puts the focus back in the field to correct; the keyboard reaches the list,
 * lists its shortcuts and gets its focus back after a dialog (§11 "Keyboard").
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { adminTab, importSigningKey, readyAdmin, type AdminTab } from './support/admin-e2e';
import { expect, navLink, openConversation, readyAgent, screenshot, signIn, test, unlock } from './support/inbox-e2e';

/** The serious and critical violations on the page as it is now, each with the elements it names. */
async function seriousViolations(page: Page): Promise<string[]> {
	const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
	return violations
		.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
		.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

async function expectAccessible(page: Page, screen: string): Promise<void> {
	await expect(page.getByRole('main'), `${screen} has a main landmark`).toHaveCount(1);
	expect(await seriousViolations(page), screen).toEqual([]);
}

test('the sign-in and key-creation pages are accessible, and a failed sign-in returns the focus to the password', async ({
	page,
	inbox
}) => {
	await page.goto('/login');
	await expectAccessible(page, 'sign-in');
	await page.getByLabel('Username').fill('nobody');
	await page.getByLabel('Password').fill('not the password');
	await page.getByRole('button', { name: 'Sign in' }).click();
	await expect(page.getByRole('alert')).toBeVisible();
	await expect(page.getByLabel('Password')).toBeFocused();
	await expect(page.getByLabel('Password')).toHaveAttribute('aria-invalid', 'true');
	await expectAccessible(page, 'sign-in after a failure');

	await signIn(page, await inbox.createAgent('newcomer'));
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'create');
	await expectAccessible(page, 'key creation');
});

test('the key, inbox, thread, admin and reports pages are accessible', async ({ page, inbox }) => {
	const admin = await readyAdmin(page, inbox, 'axe');
	await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
	await inbox.publishRoster();
	const invitation = await inbox.invite(admin);
	const customer = await inbox.customer(invitation);
	await customer.say('Is the lamp dimmable?');

	await expectAccessible(page, 'inbox');
	await openConversation(page, invitation.conversationId);
	await expect(page.getByTestId('thread').getByTestId('message')).toHaveCount(1);
	await expectAccessible(page, 'thread');
	await page.getByTestId('notification-settings').click();
	expect(await seriousViolations(page), 'notification settings').toEqual([]);
	await page.keyboard.press('Escape');

	// locked: the key gate in the reading pane's place, beside the list; then, reloaded, the whole page
	await page.getByTestId('lock').click();
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'unlock');
	await expectAccessible(page, 'key unlock beside the list');
	await page.reload();
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'unlock');
	await expectAccessible(page, 'key unlock');
	await unlock(page);

	await importSigningKey(page, inbox);
	for (const tab of ['Signing key', 'Agents', 'Roster', 'Keys', 'Operations', 'Policies', 'Audit log'] satisfies AdminTab[]) {
		await adminTab(page, tab);
		await expectAccessible(page, `admin: ${tab}`);
	}

	// the reports: figures, charts, the heatmap and tables; a figure's conversations in a dialog
	await navLink(page, 'Reports').click();
	await expect(page.getByTestId('report')).toBeVisible();
	await expectAccessible(page, 'reports');
	await page.getByTestId('report-buckets-as-table').click();
	await expectAccessible(page, 'reports, a chart as its table');
	await page.locator('button[data-figure="messagesIn"]').click();
	await expect(page.getByTestId('report-conversations').locator(`a[data-conversation-id="${invitation.conversationId}"]`)).toBeVisible();
	expect(await seriousViolations(page), 'reports: the conversations behind a figure').toEqual([]);
	await page.keyboard.press('Escape');
});

test('a normal load logs no console error; the keyboard: ? lists every shortcut, Tab reaches the list, focus comes back after a dialog', async ({
	page,
	inbox
}) => {
	const consoleErrors: string[] = [];
	page.on('console', (message) => {
		if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`);
	});
	page.on('pageerror', (error) => consoleErrors.push(error.message));
	await page.goto('/inbox');
	await expect(page.getByLabel('Username')).toBeVisible();
	const agent = await readyAgent(page, inbox, 'keyboard');
	const invitation = await inbox.invite(agent);
	await (await inbox.customer(invitation)).say('Can I pay by invoice?');
	const row = page.locator(`a[data-conversation-id="${invitation.conversationId}"]`);
	await expect(row).toBeVisible();
	await expect(page.getByTestId('thread')).toHaveCount(0);

	const focusedRow = () => page.evaluate(() => document.activeElement?.getAttribute('data-conversation-id') ?? null);
	let presses = 0;
	while ((await focusedRow()) === null && presses < 40) {
		await page.keyboard.press('Tab');
		presses++;
	}
	expect(await focusedRow()).toBe(invitation.conversationId);

	await page.keyboard.press('?');
	const shortcuts = page.getByTestId('shortcuts');
	await expect(shortcuts).toBeVisible();
	for (const action of ['Next conversation', 'Search names and messages', 'Assign it to me', 'New line', 'Show these shortcuts'])
		await expect(shortcuts).toContainText(action);
	expect(await seriousViolations(page), 'shortcuts overlay').toEqual([]);
	await screenshot(page, 'shortcuts');
	await page.keyboard.press('Escape');
	await expect(shortcuts).toBeHidden();
	expect(await focusedRow()).toBe(invitation.conversationId);

	const bell = page.getByTestId('notification-settings');
	await bell.focus();
	await page.keyboard.press('Enter');
	await expect(page.locator('dialog[open]')).toHaveCount(1);
	await page.keyboard.press('Escape');
	await expect(page.locator('dialog[open]')).toHaveCount(0);
	await expect(bell).toBeFocused();

	await openConversation(page, invitation.conversationId);
	await expect(page.getByTestId('thread').getByTestId('message')).toHaveCount(1);
	expect(consoleErrors).toEqual([]);
});
