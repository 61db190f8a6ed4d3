/**
 * Agent onboarding (DESIGN flow 5): an admin invites a person, who joins with
 * the one-time link and makes a key in their own browser; the admin reviews the roster's difference and
 * signs it in the page; the simulated customer's app then seals new conversations for the new agent,
 * who reads them, and the grant job gives them the conversations that started before they joined.
 */
import { adminTab, expect, inviteThroughPage, joinWithLink, signingAdmin, signRoster, unlockSigningKey } from './support/admin-e2e';
import { ADMIN, messages, navLink, openConversation, screenshot, test, opensUnlocked } from './support/inbox-e2e';

test('an invited agent joins and makes a key; the signed roster seals new conversations for them and grants the earlier ones', async ({
	page,
	inbox,
	browser
}) => {
	const admin = await signingAdmin(page, inbox);
	// the admin reads conversations too: sign them in first, then a conversation starts before the new agent exists
	await signRoster(page);
	const earlier = await inbox.customer(await inbox.invite(admin));
	await earlier.say('Written before Nora joined');

	const url = await inviteThroughPage(page, 'Nora Agent');
	expect(url).toMatch(new RegExp(`^${inbox.url}/join#t=[A-Za-z0-9_-]+$`));
	await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
	await page.getByTestId('agent-invitation-url-copy').click();
	await expect(page.getByTestId('agent-invitation-url-copy')).toHaveText('Copied');
	expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
	const username = `nora-${Date.now().toString(36)}`;
	// a taken username is refused and leaves the link usable
	const first = await browser.newPage();
	await first.goto(url);
	await first.getByLabel('Username').fill(ADMIN.username);
	await first.getByLabel('Password', { exact: true }).fill('a long enough password');
	await first.getByLabel('Repeat the password').fill('a long enough password');
	await first.getByRole('button', { name: 'Join' }).click();
	await expect(first.getByTestId('join-error')).toHaveAttribute('data-code', 'ALREADY_EXISTS');
	await first.close();
	const nora = await joinWithLink(browser, url, username);

	// the link works once
	const again = await browser.newPage();
	await again.goto(url);
	await again.getByLabel('Username').fill(`${username}-again`);
	await again.getByLabel('Password', { exact: true }).fill('another long password');
	await again.getByLabel('Repeat the password').fill('another long password');
	await again.getByRole('button', { name: 'Join' }).click();
	await expect(again.getByTestId('join-error')).toHaveAttribute('data-code', /^(INVITATION_EXPIRED|NOT_FOUND)$/);
	await again.close();

	// the admin sees her key, not yet in the roster, with the fingerprint her own page shows
	await navLink(nora.page, 'Key').click();
	const noraFingerprint = (await nora.page.getByTestId('agent-fingerprint').textContent()) as string;
	const noraKeyId = (await nora.page.getByTestId('agent-key-id').textContent()) as string;
	await adminTab(page, 'Agents');
	await page.getByTestId('agents-refresh').click();
	const row = page.locator(`[data-testid=agent-row][data-username="${username}"]`);
	await expect(row.getByTestId('agent-key-id')).toHaveText(noraKeyId);
	await expect(row.getByTestId('agent-fingerprint')).toHaveText(noraFingerprint);
	await expect(row).toHaveAttribute('data-in-roster', 'false');
	await expect(page.getByTestId('roster-out-of-step')).toBeVisible();
	await screenshot(page, 'admin-agents');

	// the roster page shows her as added, in the statement to sign
	await adminTab(page, 'Roster');
	await expect(page.getByTestId('roster-added').filter({ hasText: 'Nora Agent' })).toHaveAttribute('data-agent-key-id', noraKeyId);
	await expect(page.getByTestId('roster-statement')).toContainText(`${noraKeyId}:`);
	// the same fingerprint string as on her own Key page, and the confirmation says she gains access
	const added = page.getByTestId('roster-added').filter({ hasText: 'Nora Agent' });
	await expect(added.getByTestId('roster-fingerprint')).toHaveText(`key ${noraFingerprint}`);
	if (await page.getByTestId('signing-unlock').isVisible()) await unlockSigningKey(page);
	await page.getByTestId('roster-sign').click();
	await expect(page.getByTestId('confirm-gains').filter({ hasText: 'Nora Agent' })).toContainText(noraFingerprint);
	await page.getByTestId('roster-confirm-cancel').click();
	const version = await signRoster(page);
	const grant = page.locator(`[data-testid=grant-job]`).first();
	await expect(grant).toContainText(`Roster v${version}`);
	await expect(grant).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
	expect(Number(await grant.getAttribute('data-done'))).toBeGreaterThanOrEqual(1);
	await expect(page.getByTestId('roster-history').locator(`[data-roster-version="${version}"]`)).toBeVisible();
	await screenshot(page, 'admin-roster');
	await adminTab(page, 'Agents');
	await expect(row).toHaveAttribute('data-in-roster', 'true');

	// a new conversation: the customer's app sealed it for Nora, who reads it live
	const customer = await inbox.customer(await inbox.invite(admin));
	await customer.say('Hello Nora, this conversation is new');
	await navLink(nora.page, 'Inbox').click();
	await openConversation(nora.page, customer.conversationId);
	await expect(messages(nora.page)).toContainText(['Hello Nora, this conversation is new']);

	// the conversation from before she joined, granted by the server after the roster (the grant does not
	// announce itself on the live stream yet, so her browser loads the list again)
	await nora.page.reload();
	await opensUnlocked(nora.page);
	await openConversation(nora.page, earlier.conversationId);
	await expect(messages(nora.page)).toContainText(['Written before Nora joined']);
	await nora.page.context().close();
});
