import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { InboxClient } from '$test-support/inbox-client';
import { AGENT, useStack } from '$test-support/integration';
import { freePort } from '../../../cli/stack/processes';
import { startInbox, type RunningInbox } from '../../../cli/stack/stack';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

describe('several server processes on one PostgreSQL database (docs/inbox-api.md §7)', () => {
	const harness = useStack('PostgreSQL');
	let second: RunningInbox;

	beforeAll(async () => {
		const stack = harness.stack();
		second = await startInbox({ dataDir: stack.dataDir, databaseUrl: stack.databaseUrl, company: stack.company, port: await freePort() });
	}, 120_000);
	afterAll(() => second?.stop());

	it('a webhook received by one process reaches the live streams of another; a logout on one ends them', async () => {
		const onFirst = await harness.login();
		const onSecond = new InboxClient(second.url);
		// One session for both: it lives in the shared database.
		onSecond.cookie = onFirst.cookie;
		expect((await onSecond.get('/api/session')).body.account.username).toBe(AGENT.username);
		const stream = await onSecond.events();
		await stream.waitFor((event) => event.event === 'ready');

		const invited = await onFirst.post('/api/invites', {});
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		const sent = await customer.say('to whichever process listens');
		const created = await stream.waitFor((event) => event.event === 'message.created' && event.data.message.messageId === sent.messageId);
		expect(created.data.conversationId).toBe(customer.conversationId);
		await stream.waitFor(
			(event) =>
				event.event === 'conversation.changed' &&
				event.data.conversation.conversationId === customer.conversationId &&
				event.data.conversation.unreadCount === 1
		);

		expect((await onFirst.request('DELETE', '/api/session')).status).toBe(204);
		await stream.waitFor((event) => event.event === 'session.ended', 10_000);
		await stream.waitForEnd(10_000);
		expect((await onSecond.get('/api/session')).status).toBe(401);
	});
});
