/**
 * Invitations: an agent creates one for a new customer and copies or shows as a QR code
 * the one-time link with its `#s=…&fp=…` fragment; the customer's app checks `fp`, and the conversation
 * starts verified, live in the list; keyboard navigation and search reach it.
 */
import QRCode from 'qrcode';
import { fingerprintFromB64u } from '../src/lib/client/format';
import { expect, navLink, readyAgent, screenshot, test, opensUnlocked } from './support/inbox-e2e';

/** The SVG path our QR component draws for `text` (src/lib/ui/QrCode.svelte), to prove the code encodes the link. */
function qrPath(text: string): string {
	const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
	let d = '';
	for (let y = 0; y < modules.size; y++) for (let x = 0; x < modules.size; x++) if (modules.get(y, x)) d += `M${x + 4} ${y + 4}h1v1h-1z`;
	return d;
}

test('an agent invites a new customer with a link and a QR code; the conversation starts verified, live', async ({
	page,
	inbox,
	context
}) => {
	await readyAgent(page, inbox, 'inviter');
	await navLink(page, 'Invite').click();
	await page.getByLabel('Link valid for').selectOption({ label: '1 day' });
	await page.getByTestId('create-invitation').click();

	const invitation = page.getByTestId('invitation').first();
	const link = await invitation.getByTestId('invitation-link').inputValue();
	const conversationId = (await invitation.getAttribute('data-conversation-id')) as string;
	expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/invite\/[A-Za-z0-9_-]+#s=[A-Za-z0-9_-]{43}&fp=[A-Za-z0-9_-]{43}$/);
	await expect(invitation.getByTestId('short-code')).toHaveText(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);

	// fp is the company key's fingerprint, the one the trust badge shows
	const company = await (await fetch(`${inbox.simUrl}/_sim/companies/${inbox.stack.company.companyId}`)).json();
	expect(fingerprintFromB64u(new URL(link).hash.match(/fp=([^&]+)/)?.[1] ?? '')).toBe(company.fingerprint);

	await context.grantPermissions(['clipboard-read', 'clipboard-write']);
	await invitation.getByTestId('copy-link').click();
	await expect(invitation.getByTestId('copy-link')).toHaveText('Copied');
	expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);

	await invitation.getByTestId('toggle-qr').click();
	await expect(invitation.getByTestId('qr-code').locator('path')).toHaveAttribute('d', qrPath(link));
	await screenshot(page, 'invitation');

	// the invitation is a pending conversation at once; redeemed, it becomes active and verified
	await navLink(page, 'Inbox').click();
	const row = page.locator(`[data-conversation-id="${conversationId}"]`);
	await expect(row.locator('[data-status=pending]')).toBeVisible();
	const customer = await inbox.customer({ link });
	await customer.say('Thanks for the invitation!');
	await expect(row.locator('[data-trust=verified]')).toBeVisible();
	await expect(row.locator('[data-status=pending]')).toHaveCount(0);
	await expect(row.getByTestId('unread-count')).toHaveText('1');

	// keyboard: "/" searches, j/k move, Enter opens
	await page.locator('body').press('/');
	await expect(page.getByLabel('Search conversations')).toBeFocused();
	await page.keyboard.type('thanks for the INVITATION');
	// the new message was decrypted in the worker for the row's preview, so the text search finds it
	await expect(page.getByTestId('conversation-list').locator('a')).toHaveCount(1);
	await expect(row).toContainText('Thanks for the invitation!');
	await page.keyboard.press('Escape');
	await page.getByLabel('Search conversations').fill(conversationId.slice(5, 11));
	await expect(page.getByTestId('conversation-list').locator('a')).toHaveCount(1);
	await page.keyboard.press('Escape');
	await page.keyboard.press('Escape');
	await page.locator('body').press('j');
	await page.keyboard.press('Enter');
	await expect(page.getByTestId('thread')).toHaveAttribute('data-conversation-id', conversationId);
	await expect(page.getByTestId('thread').getByTestId('message')).toContainText('Thanks for the invitation!');
	await expect(page.getByTestId('thread').locator('[data-trust=verified] summary')).toContainText('Verified');
	await page.getByTestId('thread').locator('[data-trust=verified] summary').click();
	await expect(page.getByTestId('company-fingerprint')).toHaveText(company.fingerprint);
	await page.keyboard.press('Escape');
	await expect(page.getByTestId('company-fingerprint')).toBeHidden();
});

test('pending invitations are listed with their expiry, shown again after a reload, and revoked', async ({ page, inbox }) => {
	const agent = await readyAgent(page, inbox, 'pending');
	await navLink(page, 'Invite').click();
	await page.getByTestId('create-invitation').click();
	const first = page.getByTestId('invitation').first();
	const link = await first.getByTestId('invitation-link').inputValue();
	const conversationId = (await first.getAttribute('data-conversation-id')) as string;

	await page.reload();
	await opensUnlocked(page);
	const row = page.getByTestId('pending-invite').filter({ hasText: conversationId });
	await expect(row).toContainText(agent.displayName);
	await row.getByTestId('show-invite').click();
	await expect(page.getByTestId('invitation').first().getByTestId('invitation-link')).toHaveValue(link);
	await row.getByTestId('revoke-invite').click();
	await expect(row).toHaveCount(0);
	await expect(page.getByTestId('invitation')).toHaveCount(0);
});
