/**
 * Honest connection status and the outbox (docs/inbox-api.md §11 "Connection and outbox"): with
 * the messaging service stopped, the page says so, a reply moves to the outbox in under 10 s and is
 * sent by itself, once, with the same Idempotency-Key, when the service answers again; a waiting reply
 * can be discarded and is then never sent.
 */
import { rmSync } from 'node:fs';
import { startFlakyFront, type FlakyFront } from './support/flaky-front';
import {
	expect,
	messages,
	openConversation,
	readyAgent,
	screenshot,
	startInboxStack,
	test as base,
	type InboxStack
} from './support/inbox-e2e';

/** The product with a front between the inbox and the service, which the test can stall. */
const test = base.extend<object, { stalled: { inbox: InboxStack; front: FlakyFront } }>({
	stalled: [
		// eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture needs from this pattern
		async ({}, use) => {
			let front: FlakyFront | undefined;
			const inbox = await startInboxStack({
				serviceBaseUrl: async (simUrl) => {
					front = await startFlakyFront(simUrl);
					return front.url;
				}
			});
			await use({ inbox, front: front! });
			await inbox.stack.stop();
			await front!.close();
			rmSync(inbox.stack.dataDir, { recursive: true, force: true });
		},
		{ scope: 'worker', timeout: 300_000 }
	],
	inbox: [async ({ stalled }, use) => use(stalled.inbox), { scope: 'worker' }]
});

test('with the service stopped a reply waits in the outbox and is sent by itself, once, when it answers again', async ({
	page,
	stalled: { inbox, front }
}) => {
	const agent = await readyAgent(page, inbox, 'patient');
	const invitation = await inbox.invite(agent);
	const customer = await inbox.customer(invitation);
	await customer.say('Are you there?');
	await openConversation(page, invitation.conversationId);
	await expect(messages(page)).toHaveCount(1);
	const composer = page.getByLabel('Message');

	front.stall();
	const stalledAt = Date.now();
	await composer.fill('Yes, one moment please.');
	await composer.press('Enter');
	const waiting = messages(page).filter({ hasText: 'Yes, one moment please.' });
	await expect(waiting).toHaveAttribute('data-state', 'queued', { timeout: 10_000 });
	expect(Date.now() - stalledAt).toBeLessThan(10_000);
	await expect(waiting.getByTestId('delivery-state')).toHaveText('Waiting to send');
	await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'service-unreachable');
	await expect(page.getByTestId('connection-detail')).toHaveText(/The messaging service cannot be reached/);
	await screenshot(page, 'outbox');

	// a second reply, written while the page knows the service is down, says at once that it waits (it is
	// never shown as sending) and is not tried; the agent discards it
	await page.evaluate(() => {
		const seen: string[] = [];
		(window as unknown as { secondReplyStates: string[] }).secondReplyStates = seen;
		new MutationObserver(() => {
			for (const element of document.querySelectorAll('[data-testid=message]'))
				if (element.textContent?.includes('Never mind this one.')) seen.push(element.getAttribute('data-state') ?? '');
		}).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
	});
	await composer.fill('Never mind this one.');
	await composer.press('Enter');
	const discarded = messages(page).filter({ hasText: 'Never mind this one.' });
	await expect(discarded).toHaveAttribute('data-state', 'queued');
	expect(new Set(await page.evaluate(() => (window as unknown as { secondReplyStates: string[] }).secondReplyStates))).toEqual(
		new Set(['queued'])
	);
	await discarded.getByTestId('discard-send').click();
	await expect(discarded).toHaveCount(0);

	front.resume();
	await expect(waiting).toHaveAttribute('data-state', 'sent', { timeout: 20_000 });
	await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
	await expect(page.getByTestId('connection-detail')).toBeHidden();
	await expect.poll(async () => (await customer.messages()).filter((m) => m.text === 'Yes, one moment please.').length).toBe(1);
	// every attempt of the reply carried its one Idempotency-Key: tried before the outage was known and again once it ended
	const attempts = new Map<string, string[]>();
	for (const request of front.seen.filter((seen) => seen.method === 'POST' && seen.path === '/v1/messages')) {
		const clientMessageId = (JSON.parse(request.body) as { encryption: { clientMessageId: string } }).encryption.clientMessageId;
		attempts.set(clientMessageId, [...(attempts.get(clientMessageId) ?? []), String(request.headers['idempotency-key'])]);
	}
	expect([...attempts.values()].map((keys) => new Set(keys).size)).toEqual([1]);
	expect([...attempts.values()][0].length).toBeGreaterThan(1);
	const customerView = await customer.messages();
	expect(customerView.filter((m) => m.text === 'Never mind this one.')).toHaveLength(0);
	expect(customerView.filter((m) => m.senderType === 'company')).toHaveLength(1);
});
