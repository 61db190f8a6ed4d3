import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Customer, simControl } from '$test-support/customer';
import { InboxClient } from '$test-support/inbox-client';
import { signedRoster, signingKeyOf } from '$test-support/admin-api';
import { ADMIN, AGENT, useStack } from '$test-support/integration';
import { freePort } from '../../../cli/stack/ports';
import { startInbox, type RunningInbox } from '../../../cli/stack/stack';
import { b64uEncode, generateX25519KeyPair, initCrypto, type RosterAgent } from '../../crypto/index';

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
		const onFirst = await harness.loginInRoster();
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

	it("a stream opened before the agent's key was registered says resync, then shows new conversations with that key's wraps", async () => {
		const stack = harness.stack();
		const admin = await harness.login(ADMIN);
		const username = `late-key-${Date.now().toString(36)}`;
		const password = 'a password for the late key';
		expect((await admin.post('/api/admin/accounts', { username, displayName: 'Late Key', role: 'agent', password })).status).toBe(201);
		const onFirst = await InboxClient.loggedIn(stack.inbox.url, username, password);
		const onSecond = new InboxClient(second.url);
		onSecond.cookie = onFirst.cookie;
		const stream = await onSecond.events();
		await stream.waitFor((event) => event.event === 'ready');

		// The key is registered through the other process while the stream is open, then put in a roster.
		await initCrypto();
		const keyPair = generateX25519KeyPair();
		const entry = { agentKeyId: `agk_${b64uEncode(keyPair.publicKey).slice(0, 16)}`, publicKey: b64uEncode(keyPair.publicKey) };
		expect((await onFirst.request('PUT', '/api/agent-key', entry)).status).toBe(200);
		// what the stream sent before was worked out without the key: the page is told to read its lists again
		await stream.waitFor((event) => event.event === 'resync');
		const { next } = (await admin.get('/api/admin/roster')).body;
		const roster = signedRoster(
			stack.company.companyId,
			next.rosterVersion,
			[...next.agents.map(({ agentKeyId, publicKey }: RosterAgent) => ({ agentKeyId, publicKey }))],
			await signingKeyOf(stack)
		);
		expect((await admin.post('/api/admin/roster', roster)).status).toBe(201);

		const customer = await Customer.redeem(stack.simUrl, { link: (await admin.post('/api/invites', {})).body.link });
		const started = await stream.waitFor(
			(event) => event.event === 'conversation.started' && event.data.conversation.conversationId === customer.conversationId
		);
		expect(started.data.conversation.agentWraps.map((wrap: { agentKeyId: string }) => wrap.agentKeyId)).toEqual([entry.agentKeyId]);
		stream.close();
	});

	it('a webhook secret rotated through one process is used at once by a process on another machine: no webhook refused', async () => {
		const stack = harness.stack();
		// Another machine: its own DATA_DIR, holding a copy of the company key files only.
		const dataDir = mkdtempSync(join(tmpdir(), 'inbox-other-machine-'));
		cpSync(join(stack.dataDir, 'keys'), join(dataDir, 'keys'), { recursive: true });
		const elsewhere = await startInbox({ dataDir, databaseUrl: stack.databaseUrl, company: stack.company, port: await freePort() });
		try {
			const admin = await harness.login(ADMIN);
			const customer = await Customer.redeem(stack.simUrl, { link: (await admin.post('/api/invites', {})).body.link });
			expect((await admin.post('/api/admin/webhook-secret/rotation', {})).status).toBe(200);

			const sim = simControl(stack.simUrl);
			expect(
				(await sim.control('PATCH', `/_sim/companies/${stack.company.companyId}`, { webhookUrl: `${elsewhere.url}/webhooks/service` }))
					.status
			).toBe(200);
			for (let i = 0; i < 10; i++) await customer.say(`to the other machine ${i}`);
			const onElsewhere = await InboxClient.loggedIn(elsewhere.url, ADMIN.username, ADMIN.password);
			await expect
				.poll(async () => (await onElsewhere.get(`/api/conversations/${customer.conversationId}/messages?limit=50`)).body.data.length, {
					timeout: 30_000
				})
				.toBe(10);
			const deliveries = await sim.control(
				'GET',
				`/_sim/deliveries?companyId=${stack.company.companyId}&conversationId=${customer.conversationId}&eventType=message.created`
			);
			expect(deliveries.body.data.map((delivery: { status: string; attempts: number }) => [delivery.status, delivery.attempts])).toEqual(
				Array.from({ length: 10 }, () => ['succeeded', 1])
			);
			// Requests from the other machine are signed with the new secret too.
			expect((await onElsewhere.post('/api/invites', {})).status).toBe(201);
		} finally {
			await simControl(stack.simUrl).control('PATCH', `/_sim/companies/${stack.company.companyId}`, {
				webhookUrl: `${stack.inbox.url}/webhooks/service`
			});
			await elsewhere.stop();
		}
	});
});
