/**
 * Company key and webhook secret rotation through the admin's pages (contract 6.6,
 * 8): the rotation statement is signed in the page and entered in the simulated portal; conversations
 * sealed for the previous key still open on the server (an agent added afterwards is granted one), and
 * new invitations carry the new key's fingerprint. A webhook secret rotation loses no event: not one
 * in flight (retried from the operations page), nor one after a restart of the inbox.
 */
import { fingerprintFromB64u } from '../src/lib/client/format';
import { adminTab, agentWithKey, expect, signingAdmin, signRoster } from './support/admin-e2e';
import { messages, navLink, openConversation, screenshot, test, opensUnlocked } from './support/inbox-e2e';

const simCompany = async (simUrl: string, companyId: string) => (await fetch(`${simUrl}/_sim/companies/${companyId}`)).json();

test('company key rotation: signed in the page, entered in the portal; old conversations still open, new ones use the new key', async ({
	page,
	inbox,
	browser
}) => {
	const { companyId } = inbox.stack.company;
	const admin = await signingAdmin(page, inbox);
	await signRoster(page);
	const old = await inbox.customer(await inbox.invite(admin));
	await old.say('Sealed for the old company key');
	const before = await simCompany(inbox.simUrl, companyId);

	await adminTab(page, 'Keys');
	await expect(page.getByTestId('company-key-version')).toHaveText(String(before.keyVersion));
	await page.getByTestId('rotation-start').click();
	const pending = page.getByTestId('pending-rotation');
	await expect(pending).toHaveAttribute('data-to-version', String(before.keyVersion + 1));
	await expect(page.getByTestId('rotation-statement')).toContainText(
		`Service|v1|company-key-rotation|${companyId}|${before.keyVersion}|${before.publicKey}|${before.keyVersion + 1}|`
	);
	await page.getByTestId('rotation-confirm').click();
	const done = page.getByTestId('rotation-done');
	await expect(done).toHaveAttribute('data-portal', 'entered');
	await expect(done).toHaveAttribute('data-key-version', String(before.keyVersion + 1));
	await expect(page.getByTestId('company-key-version')).toHaveText(String(before.keyVersion + 1));
	await expect(page.getByTestId('company-key-previous')).toContainText(`v${before.keyVersion}`);
	await screenshot(page, 'admin-keys');

	// the portal holds the new key, and the statement verified there with signing.pub
	const after = await simCompany(inbox.simUrl, companyId);
	expect(after.keyVersion).toBe(before.keyVersion + 1);
	expect(after.publicKey).toBe(await page.getByTestId('rotation-public-key').inputValue());
	expect(after.previousKeys.map((key: { keyVersion: number }) => key.keyVersion)).toContain(before.keyVersion);
	const newFingerprint = (await page.getByTestId('rotation-fingerprint').textContent()) as string;
	expect(newFingerprint).toBe(after.fingerprint);

	// a new invitation carries the new fingerprint (the customer's app checks it) and the conversation opens
	const invitation = await inbox.invite(admin);
	expect(fingerprintFromB64u(new URL(invitation.link).hash.match(/fp=([^&]+)/)?.[1] ?? '')).toBe(newFingerprint);
	const fresh = await inbox.customer(invitation);
	await fresh.say('Sealed for the new company key');
	await navLink(page, 'Inbox').click();
	await openConversation(page, fresh.conversationId);
	await expect(messages(page)).toContainText(['Sealed for the new company key']);
	await openConversation(page, old.conversationId);
	await expect(messages(page)).toContainText(['Sealed for the old company key']);

	// the server still opens the old conversation's key with the previous company key: a new agent is granted it
	const { page: latePage } = await agentWithKey(browser, inbox, 'late');
	await signRoster(page);
	await expect(page.getByTestId('grant-job').first()).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
	await latePage.reload();
	await opensUnlocked(latePage);
	await openConversation(latePage, old.conversationId);
	await expect(messages(latePage)).toContainText(['Sealed for the old company key']);
	await latePage.context().close();
});

test('webhook secret rotation loses no event: one held back during it is retried from the operations page, and a restart keeps the secrets', async ({
	page,
	inbox
}) => {
	const { companyId } = inbox.stack.company;
	const admin = await signingAdmin(page, inbox);
	await signRoster(page);
	const customer = await inbox.customer(await inbox.invite(admin));
	await customer.say('Before the rotation');

	// the next delivery fails at once (a 400 is not retried by the service)
	const fault = await fetch(`${inbox.simUrl}/_sim/faults`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ companyId, failNext: 1, status: 400 })
	});
	expect(fault.status).toBe(201);
	await customer.say('Held back during the rotation');
	await expect
		.poll(async () => (await (await fetch(`${inbox.simUrl}/_sim/deliveries?companyId=${companyId}&status=failed`)).json()).data.length)
		.toBeGreaterThan(0);

	await adminTab(page, 'Keys');
	await page.getByTestId('webhook-rotate').click();
	await expect(page.getByTestId('webhook-rotated')).toBeVisible();
	await expect(page.getByTestId('webhook-overlap-end')).not.toBeEmpty();
	const company = await simCompany(inbox.simUrl, companyId);
	expect(company.webhookSecretRotatedAt).not.toBeNull();

	await customer.say('After the rotation');
	await adminTab(page, 'Operations');
	const failed = page.getByTestId('delivery-row').filter({ hasText: 'message.created' }).first();
	await expect(failed).toHaveAttribute('data-status', 'failed');
	await failed.getByTestId('delivery-retry').click();
	await expect(failed).toHaveAttribute('data-status', /^(pending|succeeded)$/);
	await screenshot(page, 'admin-operations');

	await navLink(page, 'Inbox').click();
	await openConversation(page, customer.conversationId);
	await expect(messages(page)).toContainText(['Before the rotation', 'Held back during the rotation', 'After the rotation']);

	// the new secret was kept under DATA_DIR: after a restart (whose environment still names the old one) events still arrive
	await inbox.stack.restartInbox();
	await customer.say('After a restart');
	await page.reload();
	await opensUnlocked(page);
	await openConversation(page, customer.conversationId);
	await expect(messages(page)).toContainText([
		'Before the rotation',
		'Held back during the rotation',
		'After the rotation',
		'After a restart'
	]);
	await adminTab(page, 'Operations');
	await page.getByTestId('event-state').selectOption('failed');
	await expect(page.getByTestId('event-row')).toHaveCount(0);
});
