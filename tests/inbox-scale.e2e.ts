/**
 * The conversation list with 10,000 conversations: a stack of its own whose database
 * holds 10,000 conversations besides a live one; the browser shows the first page with the whole list's
 * counts, loads the others as the scroll nears them, keeps a few dozen rows in the DOM, and follows a
 * scroll from top to bottom frame by frame. The frame times are reported, not asserted
 * (speed belongs in benchmarks); what is asserted is that every frame showed the rows under the viewport.
 */
import { rmSync } from 'node:fs';
import { expect, InboxStack, openConversation, readyAgent, screenshot, test as base } from './support/inbox-e2e';
import { startSeededInbox } from './support/seeded-inbox';

const SEEDED = 10_000;

const test = base.extend<object, { inbox: InboxStack }>({
	inbox: [
		// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture needs from this pattern
		async ({}, use) => {
			const inbox = await startSeededInbox(SEEDED);
			await use(inbox);
			await inbox.stack.stop();
			rmSync(inbox.stack.dataDir, { recursive: true, force: true });
		},
		{ scope: 'worker', timeout: 300_000 }
	]
});

test('10,000 conversations load, stay virtualized, and every frame of a full scroll shows the right rows', async ({
	page,
	inbox
}, testInfo) => {
	const agent = await readyAgent(page, inbox, 'scale');
	const invitation = await inbox.invite(agent);
	const customer = await inbox.customer(invitation);
	await customer.say('The newest conversation is a live one.');

	const total = SEEDED + 1;
	// the first page shows, the counts are the whole list's at once, and further pages wait for the scroll
	await expect(page.locator('footer').filter({ hasText: 'shown' })).toHaveText(/^\d+ shown · more as you scroll/, { timeout: 60_000 });
	await expect(page.locator('[data-filter=all] .n')).toHaveText(total.toLocaleString('en-US'));
	await expect(page.locator('[data-filter=pending] .n')).toHaveText((SEEDED / 10).toLocaleString('en-US'));
	const rows = page.getByTestId('conversation-list').locator('li');
	expect(await rows.count()).toBeLessThan(40);
	// newest first: the live conversation on top
	await expect(rows.first().locator('a')).toHaveAttribute('data-conversation-id', invitation.conversationId);
	await screenshot(page, 'list-10k');

	// a scroll from top to bottom in 300 frames; where it reaches the last row loaded it waits for the next page
	const frames = await page.getByTestId('conversation-scroller').evaluate(async (scroller: HTMLElement, total: number) => {
		const steps = 300;
		const rowHeight = (scroller.querySelector('li') as HTMLElement).offsetHeight;
		const max = total * rowHeight - scroller.clientHeight;
		const frame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));
		const record: { scrollTop: number; first: number; last: number; rendered: number; frameMs: number; waited: boolean }[] = [];
		let previous = await frame();
		for (let step = 1; step <= steps; step++) {
			const target = Math.round((max * step) / steps);
			let waited = false;
			for (let tries = 0; scroller.scrollHeight - scroller.clientHeight < target && tries < 600; tries++) {
				scroller.scrollTop = scroller.scrollHeight;
				waited = true;
				previous = await frame();
			}
			scroller.scrollTop = target;
			const now = await frame();
			const items = scroller.querySelectorAll('li[aria-posinset]');
			record.push({
				scrollTop: scroller.scrollTop,
				first: Number(items[0]?.getAttribute('aria-posinset')),
				last: Number(items[items.length - 1]?.getAttribute('aria-posinset')),
				rendered: items.length,
				frameMs: now - previous,
				waited
			});
			previous = now;
		}
		return { record, rowHeight, viewport: scroller.clientHeight };
	}, total);

	expect(frames.record).toHaveLength(300);
	for (const frame of frames.record) {
		// the rows under the viewport (1-based positions) were in the DOM in that very frame
		const top = Math.floor(frame.scrollTop / frames.rowHeight) + 1;
		const bottom = Math.min(total, Math.ceil((frame.scrollTop + frames.viewport) / frames.rowHeight));
		expect(frame.first).toBeLessThanOrEqual(top);
		expect(frame.last).toBeGreaterThanOrEqual(bottom);
		expect(frame.rendered).toBeLessThan(60);
	}
	expect(frames.record.at(-1)?.last).toBe(total);

	await expect(page.locator('footer').filter({ hasText: 'shown' })).toHaveText(new RegExp(`^${total.toLocaleString('en-US')} shown(?! ·)`));
	// the frames that waited for a page measure the network, not the list
	const times = frames.record
		.filter((frame) => !frame.waited)
		.map((frame) => frame.frameMs)
		.sort((a, b) => a - b);
	const percentile = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))].toFixed(1);
	const summary = `${times.length} frames (of 300; the others waited for a page) while scrolling 10,001 rows: p50 ${percentile(50)} ms, p95 ${percentile(95)} ms, max ${times.at(-1)?.toFixed(1)} ms`;
	testInfo.annotations.push({ type: 'frames', description: summary });
	console.log(summary);

	// keyboard navigation and filters work at this size too
	await page.getByTestId('conversation-scroller').evaluate((scroller: HTMLElement) => (scroller.scrollTop = 0));
	await page.locator('[data-filter=closed]').click();
	await expect(page.locator('footer').filter({ hasText: 'shown' })).toHaveText(/^2,000 shown/);
	await page.locator('[data-filter=all]').click();
	await openConversation(page, invitation.conversationId);
	await expect(page.getByTestId('thread').getByTestId('message')).toContainText('The newest conversation is a live one.');
	await page.locator('body').press('j');
	await page.keyboard.press('Enter');
	await expect(page.getByTestId('thread')).not.toHaveAttribute('data-conversation-id', invitation.conversationId);
});
