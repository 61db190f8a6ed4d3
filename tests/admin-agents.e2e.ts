/**
 * Managing agents: a disabled agent is signed out at once and comes back when
 * enabled; an agent who lost their key is reset, makes a new key at the next sign-in, and the next
 * signed roster re-grants them the conversations they had.
 */
import type { Page } from '@playwright/test';
import { adminTab, agentWithKey, expect, signingAdmin, signRoster } from './support/admin-e2e';
import { createKey, messages, openConversation, signIn, test, opensUnlocked } from './support/inbox-e2e';

async function sessionStatus(page: Page): Promise<number> {
	return page.evaluate(async () => (await fetch('/api/session')).status);
}

test('disable signs an agent out until enabled; a reset key is replaced by a new one that the next roster re-grants', async ({
	page,
	inbox,
	browser
}) => {
	const admin = await signingAdmin(page, inbox);
	const { agent, page: firstBrowser, agentKeyId: oldKeyId } = await agentWithKey(browser, inbox, 'forgetful');
	await signRoster(page);
	const customer = await inbox.customer(await inbox.invite(admin));
	await customer.say('Before the key was lost');

	await adminTab(page, 'Agents');
	await page.getByTestId('agents-refresh').click();
	const row = page.locator(`[data-testid=agent-row][data-username="${agent.username}"]`);
	await expect(row).toHaveAttribute('data-in-roster', 'true');
	await row.getByRole('button', { name: 'Disable' }).click();
	await expect(row).toHaveAttribute('data-disabled', 'true');
	expect(await sessionStatus(firstBrowser)).toBe(401);
	await row.getByRole('button', { name: 'Enable' }).click();
	await expect(row).toHaveAttribute('data-disabled', 'false');

	// the agent's browser profile is gone, with the key and no backup
	await firstBrowser.context().close();
	await row.getByRole('button', { name: 'Reset key' }).click();
	await row.getByRole('button', { name: 'Confirm reset' }).click();
	await expect(row.getByTestId('agent-key-id')).toHaveCount(0);

	const secondBrowser = await (await browser.newContext()).newPage();
	await signIn(secondBrowser, agent);
	await createKey(secondBrowser);
	const newKeyId = (await inbox.account(agent.username)).agentKeyId as string;
	expect(newKeyId).not.toBe(oldKeyId);

	await adminTab(page, 'Roster');
	await expect(page.locator(`[data-testid=roster-removed][data-agent-key-id="${oldKeyId}"]`)).toBeVisible();
	await expect(page.locator(`[data-testid=roster-added][data-agent-key-id="${newKeyId}"]`)).toBeVisible();
	const version = await signRoster(page);
	const grant = page.getByTestId('grant-job').first();
	await expect(grant).toContainText(`Roster v${version}`);
	await expect(grant).toHaveAttribute('data-state', 'done', { timeout: 60_000 });

	await secondBrowser.reload();
	await opensUnlocked(secondBrowser);
	await openConversation(secondBrowser, customer.conversationId);
	await expect(messages(secondBrowser)).toContainText(['Before the key was lost']);
	await secondBrowser.context().close();
});

test('pending invitation links are listed with their expiry and can be revoked', async ({ page, inbox }) => {
	await signingAdmin(page, inbox);
	await adminTab(page, 'Agents');
	await page.getByLabel('Display name').fill('Vera Visitor');
	await page.getByRole('button', { name: 'Create invitation link' }).click();
	const link = await page.getByTestId('agent-invitation-url').inputValue();
	const row = page.getByTestId('pending-invitation').filter({ hasText: 'Vera Visitor' });
	await expect(row).toContainText('agent');
	await row.getByTestId('revoke-invitation').click();
	await expect(row).toHaveCount(0);

	const visitor = await (await page.context().browser()!.newContext({ baseURL: inbox.url })).newPage();
	const token = new URL(link).hash.slice('#t='.length);
	const answer = await visitor.request.post('/api/join', {
		data: { token, username: 'vera', password: 'vera would choose this' },
		headers: { origin: inbox.url }
	});
	expect(answer.status()).toBe(410);
});
