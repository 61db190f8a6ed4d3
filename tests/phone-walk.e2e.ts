/**
 * Every screen on a phone (docs/inbox-api.md §11 "Phone layout"): at 390×844 with touch, no element on
 * the sign-in, key, inbox, thread, invitations, replies and admin pages is wider than its box or sticks
 * out of the screen, unless it is a marked sideways scroller.
 */
import { adminTab, createAdmin, importSigningKey, type AdminTab } from './support/admin-e2e';
import { createKey, expect, lockKey, messages, navLink, openConversation, signIn, test, unlock } from './support/inbox-e2e';
import { cutOffElements } from './support/overflow';

const PHONE = { width: 390, height: 844 };
/** Each admin tab, and what shows once its page has loaded what it lists. */
const ADMIN_TABS: Array<[AdminTab, string]> = [
	['Signing key', 'signing-imported'],
	['Agents', 'agent-row'],
	['Roster', 'roster-draft'],
	['Keys', 'company-key-fingerprint'],
	['Operations', 'trust-row'],
	['Policies', 'admin-labels'],
	['Audit log', 'audit-row']
];
const LONG_NAME = 'Maximiliane Alexandra Wolkenstein-Trostburg von Hohenzollern';

test.use({ viewport: PHONE, hasTouch: true, isMobile: true });

test('every screen fits a 390 px phone, element by element', async ({ page, inbox }) => {
	const fits = async (screen: string) => expect.soft(await cutOffElements(page), screen).toEqual([]);

	await page.goto('/login');
	await fits('sign-in');
	const admin = await createAdmin(inbox, 'phone');
	await signIn(page, admin);
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'create');
	await fits('key creation');
	await createKey(page);
	await expect.poll(async () => (await inbox.account(admin.username)).agentKeyId).not.toBeNull();
	await inbox.publishRoster();

	const api = await inbox.admin();
	const labels = await Promise.all(
		['Waiting for the warehouse', 'Refund approved by finance'].map((name, n) =>
			api.call<{ labelId: string }>('POST', '/api/admin/labels', { name, color: n ? 'green' : 'red' })
		)
	);
	const quiet = await inbox.customer(await inbox.invite(admin));
	await quiet.say('Hello? Is anybody there?');
	const invitation = await inbox.invite(admin);
	const customer = await inbox.customer(invitation);
	await customer.say('The tracking page says https://parcels.example.com/track/0123456789abcdefghijklmnopqrstuvwxyz0123456789');
	await customer.sendFile({
		name: 'photo-of-the-delivery-note-with-a-long-name.pdf',
		mime: 'application/pdf',
		data: Buffer.alloc(3000, 7)
	});
	await api.call('PUT', `/api/conversations/${invitation.conversationId}/labels`, { labelIds: labels.map((label) => label.labelId) });
	await api.call('PUT', `/api/conversations/${invitation.conversationId}/assignee`, { accountId: admin.accountId });

	await openConversation(page, invitation.conversationId);
	await expect(messages(page)).toHaveCount(2);
	await page.getByRole('button', { name: 'Details' }).click();
	await page.getByTestId('profile-name').fill(LONG_NAME);
	await page.getByTestId('profile-save').click();
	await expect(page.getByTestId('thread-title')).toHaveText(LONG_NAME);
	await fits('thread with the details panel');
	await page.getByRole('button', { name: 'Details' }).click();
	await page
		.getByLabel('Message')
		.fill('A reply that is being written, with https://parcels.example.com/track/0123456789abcdefghijklmnopqrstuvwxyz');
	await fits('thread');
	// on a phone the row keeps the assignee, labels, Resolve, More and Details; snooze is in the menu
	await expect(page.getByTestId('thread').locator('header .actions > *:visible')).toHaveCount(5);
	await page.getByTestId('more-actions').locator('summary').click();
	await expect(page.getByTestId('close-conversation')).toBeVisible();
	await fits('thread with the More menu');
	await page.getByTestId('snooze').selectOption({ label: 'Pick a date and time…' });
	await expect(page.getByTestId('snooze-picker')).toBeVisible();
	await fits('thread with the snooze picker');

	await page.getByRole('link', { name: 'Back to the conversation list' }).click();
	await expect(page.locator(`[data-conversation-id="${invitation.conversationId}"]`).first()).toContainText(LONG_NAME);
	await fits('inbox list');

	await page.getByTestId('notification-settings').click();
	await expect(page.locator('dialog[open]')).toHaveCount(1);
	await fits('notification settings');
	await page.keyboard.press('Escape');
	await page.keyboard.press('?');
	await expect(page.getByTestId('shortcuts')).toBeVisible();
	await fits('keyboard shortcuts');
	await page.keyboard.press('Escape');

	await navLink(page, 'Invite').click();
	await page.getByTestId('create-invitation').click();
	// the admin sees every pending invitation of the team, this one among them
	await expect(page.getByTestId('pending-invite')).not.toHaveCount(0);
	await fits('invitations');
	await navLink(page, 'Replies').click();
	await page.getByLabel('Shortcut', { exact: true }).fill('delivery-times-and-tracking');
	await page
		.getByLabel('Reply', { exact: true })
		.fill('Parcels leave within two working days: https://parcels.example.com/track/0123456789abcdefghijklmnopqrstuvwxyz');
	await page.getByLabel('For').selectOption('team');
	await page.getByTestId('canned-add').click();
	// the team's replies of other tests share the stack: this one is among them
	await expect(page.getByTestId('canned-reply').filter({ hasText: 'delivery-times-and-tracking' })).toHaveCount(1);
	await fits('canned replies');
	await navLink(page, 'Key').click();
	await expect(page.getByTestId('agent-fingerprint')).toBeVisible();
	await fits('key');

	// the key stays open for the session; Lock brings the unlock screen, also after a reload
	await lockKey(page);
	await page.reload();
	await expect(page.getByTestId('key-gate')).toHaveAttribute('data-screen', 'unlock');
	await fits('key unlock');
	await unlock(page);

	await importSigningKey(page, inbox);
	for (const [tab, loaded] of ADMIN_TABS) {
		await adminTab(page, tab);
		await expect(page.getByTestId(loaded).first()).toBeVisible();
		await fits(`admin: ${tab}`);
	}
});
