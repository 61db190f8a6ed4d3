/**
 * Re-invitation (contract 6.4; docs/threat-model.md): a link from the thread, recorded there with the
 * customer's new fingerprint; with a binding the new device gets the key once a second person approves
 * (the default policy); without one the agent sees the new key's fingerprint and must confirm having
 * checked it before the rewrap is sent; an invalid binding is never re-sealed.
 */
import { fingerprintDisplay, initCrypto } from '../src/lib/crypto/index';
import { ADMIN, expect, messages, openConversation, readyAgent, screenshot, test } from './support/inbox-e2e';
import type { Page } from '@playwright/test';

// The default policy again after each test: the stack is shared by the worker's other tests.
test.afterEach(async ({ inbox }) => {
	await (await inbox.admin()).call('PATCH', '/api/admin/settings', { reinviteRewrap: 'second_person' });
});

async function reinviteFromThread(page: Page): Promise<{ link: string; shortCode: string }> {
	await page.getByTestId('more-actions').locator('summary').click();
	await page.getByTestId('reinvite').click();
	const dialog = page.getByRole('dialog', { name: 'Re-invite the customer' });
	await dialog.getByTestId('create-reinvite').click();
	const link = await dialog.getByTestId('invitation-link').inputValue();
	const shortCode = (await dialog.getByTestId('short-code').textContent())?.trim() ?? '';
	expect(link).toMatch(/#s=[A-Za-z0-9_-]{43}&fp=[A-Za-z0-9_-]{43}$/);
	return { link, shortCode };
}

test('re-invitation with a binding: the thread records it, a second person approves, and the new device reads the whole history', async ({
	page,
	inbox
}) => {
	await initCrypto();
	const agent = await readyAgent(page, inbox, 'bound');
	const invitation = await inbox.invite(agent);
	const customer = await inbox.customer(invitation);
	await customer.say('I am getting a new phone tomorrow.');
	await openConversation(page, invitation.conversationId);
	await page.getByLabel('Message').fill('No problem, we will send you a new link.');
	await page.getByLabel('Message').press('Enter');
	await expect(messages(page).filter({ hasText: 'send you a new link' })).toHaveAttribute('data-state', 'sent');

	const reinvitation = await reinviteFromThread(page);
	await page.getByRole('dialog').getByTestId('toggle-qr').click();
	await expect(page.getByRole('dialog').getByTestId('qr-code')).toBeVisible();
	await screenshot(page, 'reinvite');
	await page.keyboard.press('Escape');
	await expect(page.getByRole('dialog')).toHaveCount(0);

	const before = (await customer.view()).publicKey;
	await customer.changeDevice({ link: reinvitation.link });
	const { publicKey } = await customer.view();
	expect(publicKey).not.toBe(before);
	// Verified, and recorded in the thread; by the team's default policy a second person approves.
	const keyEvents = page.getByTestId('key-event');
	await expect(keyEvents.filter({ hasText: `${agent.displayName} re-invited this customer.` })).toBeVisible();
	await expect(
		keyEvents.filter({
			hasText: `The customer’s key changed (new fingerprint ${fingerprintDisplay(Buffer.from(publicKey, 'base64url'))}).`
		})
	).toBeVisible();
	await expect(page.getByTestId('rewrap-needs-second-person')).toBeVisible();
	await expect(page.getByTestId('confirm-rewrap')).toHaveCount(0);
	expect((await customer.view()).status).toBe('awaiting_key');
	await (await inbox.admin()).call('POST', `/api/conversations/${invitation.conversationId}/rewrap`, {});
	// the approver's standing: Grace is an admin since the stack made her, from the command line
	await expect(
		keyEvents.filter({
			hasText: new RegExp(
				`${ADMIN.displayName} \\(an admin since .+, made one by the command line\\) approved giving the new device the conversation’s history\\.`
			)
		})
	).toBeVisible();
	await expect.poll(async () => (await customer.view()).status).toBe('active');
	await expect(page.getByTestId('thread').locator('[data-status=active]')).toBeVisible();
	await expect(page.getByTestId('awaiting-key')).toHaveCount(0);
	const history = await customer.messages();
	expect(history.map((m) => m.error ?? m.text)).toEqual(['I am getting a new phone tomorrow.', 'No problem, we will send you a new link.']);

	await page.getByLabel('Message').fill('Welcome back on your new phone!');
	await page.getByLabel('Message').press('Enter');
	await expect.poll(async () => (await customer.messages()).at(-1)?.text).toBe('Welcome back on your new phone!');
});

test('re-invitation without a binding waits for the agent, who checks the new key’s fingerprint first', async ({ page, inbox }) => {
	await initCrypto();
	// With the automatic policy the agent who re-invited confirms the fingerprint alone.
	await (await inbox.admin()).call('PATCH', '/api/admin/settings', { reinviteRewrap: 'automatic' });
	const agent = await readyAgent(page, inbox, 'unbound');
	const invitation = await inbox.invite(agent);
	const customer = await inbox.customer(invitation);
	await customer.say('Hello from my old phone');
	await openConversation(page, invitation.conversationId);
	await expect(messages(page).filter({ hasText: 'old phone' })).toBeVisible();

	const reinvitation = await reinviteFromThread(page);
	await page.keyboard.press('Escape');
	await customer.changeDevice({ shortCode: reinvitation.shortCode });

	const panel = page.getByTestId('awaiting-key');
	await expect(panel).toHaveAttribute('data-rewrap', 'needs_confirmation');
	const expected = fingerprintDisplay(Buffer.from((await customer.view()).publicKey, 'base64url'));
	await expect(panel.getByTestId('new-key-fingerprint')).toHaveText(expected);
	await expect(panel.getByTestId('confirm-rewrap')).toBeDisabled();

	// writing now is refused by the service, in words
	await page.getByLabel('Message').fill('Can you read this yet?');
	await page.getByLabel('Message').press('Enter');
	const early = messages(page).filter({ hasText: 'Can you read this yet?' });
	await expect(early).toHaveAttribute('data-state', 'failed');
	await expect(early.getByTestId('send-error')).toContainText('CONVERSATION_AWAITING_KEY');
	await expect(early.getByTestId('send-error')).toContainText('their new key has not been given access yet');
	expect((await customer.view()).status).toBe('awaiting_key');
	await screenshot(page, 'rewrap-confirm');

	await panel.getByTestId('confirm-checked').check();
	await panel.getByTestId('confirm-rewrap').click();
	await expect(page.getByTestId('thread').locator('[data-status=active]')).toBeVisible();
	await expect.poll(async () => (await customer.view()).status).toBe('active');

	await early.getByTestId('retry-send').click();
	await expect(early).toHaveAttribute('data-state', 'sent');
	await expect
		.poll(async () => (await customer.messages()).map((m) => m.error ?? m.text))
		.toEqual(['Hello from my old phone', 'Can you read this yet?']);
});

test('an invalid binding is flagged and its re-invitation is never re-sealed', async ({ page, inbox }) => {
	const agent = await readyAgent(page, inbox, 'invalid');
	const invitation = await inbox.invite(agent);
	const foreign = invitation.link.replace(/#s=[A-Za-z0-9_-]+/, `#s=${Buffer.alloc(32, 9).toString('base64url')}`);
	const customer = await inbox.customer({ link: foreign });
	await customer.say('hello?');

	const row = page.locator(`[data-conversation-id="${invitation.conversationId}"]`);
	await expect(row.locator('[data-trust=binding_invalid]')).toBeVisible();
	await openConversation(page, invitation.conversationId);
	await expect(page.getByTestId('binding-invalid')).toContainText('Not trusted');
	await expect(page.getByTestId('composer-warning')).toContainText('not trusted');

	const reinvitation = await reinviteFromThread(page);
	await page.keyboard.press('Escape');
	await customer.changeDevice({ link: reinvitation.link.replace(/#s=[A-Za-z0-9_-]+/, `#s=${Buffer.alloc(32, 7).toString('base64url')}`) });
	await expect(page.getByTestId('awaiting-key')).toHaveAttribute('data-rewrap', 'blocked');
	await expect(page.getByTestId('awaiting-key')).toContainText('failed the binding check');
	await expect(page.getByTestId('confirm-rewrap')).toHaveCount(0);
	expect((await customer.view()).status).toBe('awaiting_key');
});
