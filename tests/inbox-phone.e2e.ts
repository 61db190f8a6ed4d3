/**
 * The inbox on a phone (docs/inbox-api.md §11 "Phone layout"): 390×844 with touch, a bottom
 * navigation, the list and the thread as separate screens, nothing wider than the screen, no keyboard
 * hints; and on any screen a thread with images opens at its newest message.
 */
import { encodePng } from '../src/cli/demo/png';
import { expect, messages, openConversation, readyAgent, screenshot, test, opensUnlocked } from './support/inbox-e2e';
import { cutOffElements } from './support/overflow';

const PHONE = { width: 390, height: 844 };

test.describe('on a phone', () => {
	test.use({ viewport: PHONE, hasTouch: true, isMobile: true });

	test('a bottom navigation, the list and the thread as separate screens, nothing sideways, no keyboard hints', async ({ page, inbox }) => {
		const agent = await readyAgent(page, inbox, 'phone');
		const invitation = await inbox.invite(agent);
		const customer = await inbox.customer(invitation);
		await customer.say(
			'The tracking page says https://parcels.example.com/track/0123456789abcdefghijklmnopqrstuvwxyz0123456789 and nothing more'
		);
		await customer.sendFile({
			name: 'photo-of-the-delivery-note-with-a-long-name.pdf',
			mime: 'application/pdf',
			data: Buffer.alloc(3000, 7)
		});

		const navigation = page.getByRole('navigation', { name: 'Main' });
		const bar = await navigation.boundingBox();
		expect(bar && { bottom: Math.round(bar.y + bar.height), width: Math.round(bar.width) }).toEqual({
			bottom: PHONE.height,
			width: PHONE.width
		});
		await expect(page.getByRole('region', { name: 'Conversations' })).toBeVisible();
		await expect(page.locator('kbd:visible')).toHaveCount(0);
		await screenshot(page, 'phone-list');

		await openConversation(page, invitation.conversationId);
		await expect(page.getByRole('region', { name: 'Conversations' })).toBeHidden();
		await expect(messages(page)).toHaveCount(2);
		await expect(page.locator('kbd:visible')).toHaveCount(0);
		const composer = page.getByLabel('Message');
		await expect(composer).toHaveAttribute('placeholder', 'Write a reply…');

		// Enter is a new line on a touch screen; the Send button sends
		await composer.fill('Thanks for the photo.');
		await composer.press('Enter');
		await composer.pressSequentially('We send a new lamp today.');
		await expect(composer).toHaveValue('Thanks for the photo.\nWe send a new lamp today.');
		await page.getByTestId('send').tap();
		await expect(messages(page).filter({ hasText: 'We send a new lamp today.' })).toHaveAttribute('data-state', 'sent');
		expect(await cutOffElements(page)).toEqual([]);
		await screenshot(page, 'phone-thread');

		await page.getByRole('link', { name: 'Back to the conversation list' }).tap();
		await expect(page.getByRole('region', { name: 'Conversations' })).toBeVisible();
		await expect(page.getByTestId('thread')).toHaveCount(0);
	});
});

test('a thread with images opens at its newest message', async ({ page, inbox }) => {
	const agent = await readyAgent(page, inbox, 'pictures');
	const invitation = await inbox.invite(agent);
	await (await inbox.customer(invitation)).say('Can you show me the colours?');
	await openConversation(page, invitation.conversationId);
	const colours: Array<[string, [number, number, number]]> = [
		['red', [200, 40, 40]],
		['green', [40, 160, 60]],
		['blue', [40, 60, 200]],
		['amber', [230, 160, 20]]
	];
	for (const [name, rgb] of colours) {
		await page
			.getByTestId('file-input')
			.setInputFiles({ name: `${name}.png`, mimeType: 'image/png', buffer: encodePng(480, 640, () => rgb) });
		await page.getByTestId('send').click();
		await expect(messages(page).filter({ has: page.locator(`[data-name="${name}.png"]`) })).toHaveAttribute('data-state', 'sent');
	}
	await page.getByLabel('Message').fill('Those are all four.');
	await page.getByLabel('Message').press('Enter');
	await expect(messages(page).filter({ hasText: 'Those are all four.' })).toHaveAttribute('data-state', 'sent');

	await page.reload();
	await opensUnlocked(page);
	await expect(page.getByTestId('thumbnail')).toHaveCount(colours.length);
	for (const thumbnail of await page.getByTestId('thumbnail').all()) await expect(thumbnail).toHaveJSProperty('complete', true);
	await expect(messages(page).filter({ hasText: 'Those are all four.' })).toBeInViewport();
	const fromBottom = await page
		.getByTestId('messages')
		.evaluate((scroller) => scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight);
	expect(fromBottom).toBeLessThan(2);
});
