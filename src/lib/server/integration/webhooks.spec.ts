import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Customer, simControl } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { ADMIN, useStack } from '$test-support/integration';
import { parseLog } from '$test-support/server-log';
import { webhookHeaders, webhookSignature, webhookVectors } from '$test-support/webhooks';
import { freePort } from '../../../cli/stack/ports';
import { ensureCompanyKeys, startInbox, type RunningInbox } from '../../../cli/stack/stack';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read loosely; the specs assert on them */

describe.each(BACKENDS)('the webhook receiver of the running server on %s (contract 5.2)', (backend) => {
	const harness = useStack(backend);
	const others: RunningInbox[] = [];
	afterAll(async () => {
		await Promise.all(others.map((inbox) => inbox.stop()));
	});

	async function deliveries(conversationId: string): Promise<any[]> {
		const { body } = await simControl(harness.stack().simUrl).control(
			'GET',
			`/_sim/deliveries?companyId=${harness.stack().company.companyId}&conversationId=${conversationId}`
		);
		return body.data;
	}

	async function storedTexts(conversationId: string): Promise<string[]> {
		const agent = await harness.login(ADMIN);
		const stored = await agent.get(`/api/conversations/${conversationId}/messages`);
		if (stored.status !== 200) throw new Error(`stored messages: ${stored.status} ${JSON.stringify(stored.body)}`);
		return stored.body.data.map((message: { messageId: string }) => message.messageId);
	}

	async function conversation(): Promise<{ customer: Customer; conversationId: string }> {
		const agent = await harness.login(ADMIN);
		const invited = await agent.post('/api/invites', {});
		if (invited.status !== 201) throw new Error(`invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
		const customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });
		return { customer, conversationId: customer.conversationId };
	}

	it('answers every webhook case of the public HMAC vectors at their own time: valid 200, invalid 401 with the code', async () => {
		const vectors = webhookVectors();
		const data = await harness.freshData();
		await ensureCompanyKeys(data.dataDir);
		await data.prepare();
		const inbox = await startInbox({
			dataDir: data.dataDir,
			databaseUrl: data.databaseUrl,
			port: await freePort(),
			company: {
				companyId: 'cmp_vectors',
				apiKey: `sk_live_${'A'.repeat(43)}`,
				webhookSecret: vectors[0].secret,
				serviceBaseUrl: 'http://127.0.0.1:9'
			},
			nodeArgs: ['--import', join(process.cwd(), 'tests/support/fixed-clock.mjs')],
			env: { TEST_CLOCK_FIXED_MS: String(vectors[0].now * 1000) }
		});
		others.push(inbox);
		expect(new Set(vectors.map((vector) => vector.now)).size).toBe(1);
		const duplicates: boolean[] = [];
		for (const vector of vectors) {
			const response = await fetch(`${inbox.url}/webhooks/service`, {
				method: 'POST',
				headers: webhookHeaders(vector.header),
				body: vector.body
			});
			const answer = await response.json();
			expect({ name: vector.name, status: response.status, code: answer.error?.code }).toEqual({
				name: vector.name,
				status: vector.error ? 401 : 200,
				code: vector.error
			});
			if (!vector.error) duplicates.push(answer.duplicate);
		}
		// The valid cases are three deliveries of one event: stored the first time, acknowledged as duplicates after.
		expect(duplicates).toEqual([false, true, true]);
		const log = inbox.process.output();
		expect(parseLog(log)).toContainEqual(
			expect.objectContaining({ level: 'warn', msg: 'webhook signature rejected', code: 'SIGNATURE_INVALID' })
		);
		expect(log).not.toContain(vectors[0].secret);
	});

	it('duplicated deliveries and a lost acknowledgement are processed once', async () => {
		const { customer, conversationId } = await conversation();
		const sim = simControl(harness.stack().simUrl);
		const { companyId } = harness.stack().company;
		await sim.control('POST', '/_sim/faults', { companyId, failNext: 2, duplicate: true });
		await customer.say('sent twice at once');
		await customer.say('also twice');
		await sim.control('POST', '/_sim/faults', { companyId, failNext: 1, timeout: true });
		await customer.say('acknowledged, but the service never heard');
		await expect.poll(async () => (await storedTexts(conversationId)).length, { timeout: 30_000 }).toBe(3);
		// The time-out makes the service deliver the third message again after 10 s of its clock.
		await sim.control('POST', '/_sim/clock', { advanceSeconds: 11 });
		await expect
			.poll(
				async () =>
					(await deliveries(conversationId))
						.filter((delivery) => delivery.eventType === 'message.created')
						.map((delivery) => delivery.status),
				{
					timeout: 30_000
				}
			)
			.toEqual(['succeeded', 'succeeded', 'succeeded']);
		const attempts = (await deliveries(conversationId))
			.filter((delivery) => delivery.eventType === 'message.created')
			.map((delivery) => delivery.attempts);
		expect(attempts).toEqual([1, 1, 2]);
		expect(await storedTexts(conversationId)).toHaveLength(3);
		const agent = await harness.login(ADMIN);
		const view = await agent.get(`/api/conversations/${conversationId}`);
		expect(view.body.unreadCount).toBe(3);
	});

	it('a signed body without an id, replayed under another X-Service-Event-Id, is stored and processed once', async () => {
		const sim = simControl(harness.stack().simUrl);
		const { companyId, webhookSecret } = harness.stack().company;
		const url = `${harness.stack().inbox.url}/webhooks/service`;
		/** The service's next body, kept from the inbox (a 400 is not retried), as the contract shows it: no event id, no message id. */
		async function withheld(emit: () => Promise<unknown>, conversationId: () => string, eventType: string): Promise<string> {
			await sim.control('POST', '/_sim/faults', { companyId, failNext: 1, status: 400 });
			await emit();
			const failed = async () =>
				(await deliveries(conversationId())).find((entry) => entry.eventType === eventType && entry.status === 'failed');
			await expect.poll(failed, { timeout: 20_000 }).toBeTruthy();
			const { id: _id, ...event } = JSON.parse((await failed()).body);
			const { messageId: _messageId, seq: _seq, ...data } = event.data;
			return JSON.stringify({ ...event, data });
		}
		async function replay(body: string, eventIds: string[]): Promise<boolean[]> {
			const signature = webhookSignature(webhookSecret, body);
			const duplicates: boolean[] = [];
			for (const eventId of eventIds) {
				const response = await fetch(url, { method: 'POST', headers: webhookHeaders(signature, eventId), body });
				expect(response.status).toBe(200);
				duplicates.push((await response.json()).duplicate);
			}
			return duplicates;
		}

		const agent = await harness.login(ADMIN);
		const invited = await agent.post('/api/invites', {});
		let customer!: Customer;
		const started = await withheld(
			async () => (customer = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link })),
			() => customer.conversationId,
			'conversation.started'
		);
		const { conversationId } = customer;
		expect(await replay(started, ['evt_replayStart1', 'evt_replayStart2'])).toEqual([false, true]);
		const said = await withheld(
			() => customer.say('said once'),
			() => conversationId,
			'message.created'
		);
		expect(await replay(said, ['evt_replaySaid1', 'evt_replaySaid2'])).toEqual([false, true]);
		// Events are processed in the order they were stored: once a later one shows, these were processed.
		await customer.say('and then');
		await expect.poll(async () => (await storedTexts(conversationId)).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
		const stored = await storedTexts(conversationId);
		expect([stored.length, stored.filter((messageId) => messageId.startsWith('evt_replaySaid'))]).toEqual([2, ['evt_replaySaid1']]);
		expect((await agent.get(`/api/conversations/${conversationId}`)).body.trust).toBe('verified');
	});

	it('events acknowledged by a server that is killed before processing them are processed after the restart', async () => {
		const { customer, conversationId } = await conversation();
		await expect
			.poll(async () => (await harness.login(ADMIN)).get(`/api/conversations/${conversationId}`).then((answer) => answer.body.trust), {
				timeout: 20_000
			})
			.toBe('verified');
		await harness.stack().restartInbox({ env: { WEBHOOK_PROCESSING: 'off' } });
		for (const text of ['one', 'two', 'three']) await customer.say(text);
		await expect
			.poll(
				async () =>
					(await deliveries(conversationId)).filter(
						(delivery) => delivery.eventType === 'message.created' && delivery.status === 'succeeded'
					).length,
				{
					timeout: 30_000
				}
			)
			.toBe(3);
		expect(await storedTexts(conversationId)).toEqual([]);
		await harness.stack().restartInbox({ kill: true });
		await expect.poll(async () => (await storedTexts(conversationId)).length, { timeout: 30_000 }).toBe(3);
	});

	// PGlite lives inside the server process, so only PostgreSQL can be stopped under it here
	// (src/lib/server/webhooks/receiver.spec.ts covers a failing PGlite).
	if (backend === 'PostgreSQL')
		it('a database that is down makes the receiver answer 503, and the service delivers again later', async () => {
			const { customer, conversationId } = await conversation();
			await expect
				.poll(async () => (await deliveries(conversationId)).every((delivery) => delivery.status === 'succeeded'), { timeout: 20_000 })
				.toBe(true);
			const cluster = harness.databases.cluster();
			await cluster.stop();
			try {
				await customer.say('while the database is down');
				await expect
					.poll(async () => (await deliveries(conversationId)).find((delivery) => delivery.eventType === 'message.created')?.lastStatus, {
						timeout: 30_000
					})
					.toBe(503);
			} finally {
				await cluster.start();
			}
			await simControl(harness.stack().simUrl).control('POST', '/_sim/clock', { advanceSeconds: 11 });
			await expect.poll(async () => (await storedTexts(conversationId).catch(() => [])).length, { timeout: 40_000 }).toBe(1);
			const delivery = (await deliveries(conversationId)).find((entry) => entry.eventType === 'message.created');
			expect(delivery.attemptLog.map((attempt: { status: number }) => attempt.status)).toEqual([503, 200]);
		});
});
