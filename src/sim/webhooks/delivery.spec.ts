/* eslint-disable @typescript-eslint/no-explicit-any -- delivery log entries are untyped JSON */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ContractError, verifyWebhookSignature } from '../../lib/crypto/index';
import { startConversation, useSimulator, waitFor } from '../testing/fixture';
import { WebhookReceiver } from '../testing/receiver';
import { RETRY_INTERVALS_SECONDS, webhookSignatureHeader } from './delivery';

const vectors = JSON.parse(readFileSync(new URL('../../../vectors/conformance.json', import.meta.url), 'utf8'));
const env = useSimulator();

afterEach(() => env.resetClock());

async function deliveryLog(companyId: string): Promise<any[]> {
	return (await env.simulator.control('GET', `/_sim/deliveries?companyId=${companyId}`)).body.data;
}

async function waitForAttempts(companyId: string, attempts: number, eventType = 'conversation.started'): Promise<any> {
	return waitFor(`${attempts} attempts of ${eventType}`, async () => {
		const delivery = (await deliveryLog(companyId)).find((entry) => entry.eventType === eventType);
		return delivery && delivery.attemptLog.length >= attempts ? delivery : undefined;
	});
}

const freeze = () => env.simulator.control('POST', '/_sim/clock', { scale: 0 });
const advance = (seconds: number) => env.simulator.control('POST', '/_sim/clock', { advanceSeconds: seconds });

describe('what a webhook carries (contract 5.2; contract-gaps §9)', () => {
	it('sends every header of 5.2, signed with the current secret over the exact body', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		const conversation = await startConversation(env.simulator, client, company);
		const webhook = await waitFor('the webhook', () => receiver.received[0]);
		expect(webhook.headers['content-type']).toBe('application/json');
		expect(webhook.headers['user-agent']).toBe('Service-Webhooks/1.0');
		expect(webhook.headers['x-service-event-id']).toMatch(/^evt_[A-Za-z0-9_-]+$/);
		expect(webhook.headers['x-service-delivery-id']).toMatch(/^dlv_[A-Za-z0-9_-]+$/);
		expect(webhook.headers['x-service-attempt']).toBe('1');
		expect(webhook.event).toEqual({
			id: webhook.headers['x-service-event-id'],
			type: 'conversation.started',
			createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
			companyId: company.companyId,
			data: expect.objectContaining({ conversationId: conversation.conversationId, isReinvite: false })
		});
		const now = Math.floor(Date.now() / 1000);
		const header = webhook.headers['x-service-signature'] as string;
		expect(verifyWebhookSignature({ secrets: [company.webhookSecret], header, body: webhook.body, now })).toEqual({
			t: expect.any(Number)
		});
		expect(() => verifyWebhookSignature({ secrets: [env.company.webhookSecret], header, body: webhook.body, now })).toThrow(ContractError);
		expect(() =>
			verifyWebhookSignature({
				secrets: [company.webhookSecret],
				header,
				body: webhook.body.replace('"isReinvite":false', '"isReinvite":true'),
				now
			})
		).toThrow(/does not match/);
	});

	it('reproduces the valid public webhook vectors exactly', () => {
		const valid = (vectors.hmac.webhooks as any[]).filter((vector) => vector.error === undefined && !vector.header.includes(' '));
		expect(valid.length).toBeGreaterThanOrEqual(2);
		for (const vector of valid) {
			const t = Number(/t=(\d+)/.exec(vector.header)?.[1]);
			expect(webhookSignatureHeader(vector.secret, t, vector.body)).toBe(vector.header);
		}
	});

	it('signs with the new secret right after a rotation', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		const rotated = await env.simulator.control('POST', `/_sim/companies/${company.companyId}/webhook-secret/rotate`, {});
		await startConversation(env.simulator, client, company);
		const webhook = await waitFor('the webhook', () => receiver.received[0]);
		const now = Math.floor(Date.now() / 1000);
		verifyWebhookSignature({
			secrets: [rotated.body.webhookSecret],
			header: webhook.headers['x-service-signature'] as string,
			body: webhook.body,
			now
		});
		expect(() =>
			verifyWebhookSignature({
				secrets: [company.webhookSecret],
				header: webhook.headers['x-service-signature'] as string,
				body: webhook.body,
				now
			})
		).toThrow(ContractError);
	});

	it('delivers one company’s events one at a time, in order', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		const conversation = await startConversation(env.simulator, client, company);
		for (let i = 1; i <= 6; i++)
			await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: `m${i}` });
		await waitFor('six messages', () => receiver.ofType('message.created').length === 6);
		expect(receiver.ofType('message.created').map((webhook) => webhook.event.data.seq)).toEqual([1, 2, 3, 4, 5, 6]);
	});
});

describe('retries (contract 6: 10 s, 1 min, 5 min, 30 min, 2 h)', () => {
	it('retries a 503 on that schedule of the simulated clock, then fails after the sixth attempt', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		receiver.defaultStatus = 503;
		await freeze();
		await startConversation(env.simulator, client, company);
		await waitForAttempts(company.companyId, 1);
		await advance(9);
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect((await waitForAttempts(company.companyId, 1)).attemptLog).toHaveLength(1);
		await advance(1);
		await waitForAttempts(company.companyId, 2);
		// Running twenty times as fast, the 1-minute retry comes after 3 s (and the 10 s time-out is 0.5 s).
		await env.simulator.control('POST', '/_sim/clock', { scale: 20 });
		await waitForAttempts(company.companyId, 3);
		await freeze();
		await advance(300);
		await waitForAttempts(company.companyId, 4);
		await advance(1800);
		await waitForAttempts(company.companyId, 5);
		await advance(7199);
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect((await waitForAttempts(company.companyId, 5)).attemptLog).toHaveLength(5);
		await advance(1);
		const delivery = await waitFor('the delivery to fail', async () => {
			const entry = (await deliveryLog(company.companyId))[0];
			return entry.status === 'failed' ? entry : undefined;
		});

		const log = delivery.attemptLog;
		expect(log.map((attempt: any) => attempt.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
		for (let i = 1; i < log.length; i++) {
			expect(log[i].scheduledAtMs - log[i - 1].finishedAtMs).toBe(RETRY_INTERVALS_SECONDS[i - 1] * 1000);
			expect(log[i].startedAtMs).toBeGreaterThanOrEqual(log[i].scheduledAtMs);
		}
		expect(delivery).toMatchObject({ attempts: 6, nextAttemptAt: null });
		expect(receiver.received.map((webhook) => webhook.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4', '5', '6']);
		expect(new Set(receiver.received.map((webhook) => webhook.body)).size).toBe(1);
		expect(new Set(receiver.received.map((webhook) => webhook.headers['x-service-delivery-id'])).size).toBe(1);
		await advance(86_400);
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(receiver.received).toHaveLength(6);
	});

	it('retries 408, 429, 5xx; fails at once on 400, 401, 403, 422 and other statuses', async () => {
		await freeze();
		const outcomes: Record<number, string> = {};
		for (const status of [408, 429, 500, 502, 400, 401, 403, 422, 404, 302]) {
			const { company, client, receiver } = await env.isolatedCompany();
			receiver.defaultStatus = status;
			await startConversation(env.simulator, client, company);
			const delivery = await waitForAttempts(company.companyId, 1);
			outcomes[status] = `${delivery.status}:${delivery.lastStatus}:${delivery.nextAttemptAtMs === null ? 'no retry' : 'retry'}`;
		}
		expect(outcomes).toEqual({
			408: 'pending:408:retry',
			429: 'pending:429:retry',
			500: 'pending:500:retry',
			502: 'pending:502:retry',
			400: 'failed:400:no retry',
			401: 'failed:401:no retry',
			403: 'failed:403:no retry',
			422: 'failed:422:no retry',
			404: 'failed:404:no retry',
			302: 'failed:302:no retry'
		});
	});

	it('times out after 10 s of the simulated clock and retries; the receiver sees the event twice', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		receiver.script.push('hang');
		await freeze();
		await startConversation(env.simulator, client, company);
		await waitFor('the first request', () => receiver.received.length === 1);
		await advance(10);
		const timedOut = await waitForAttempts(company.companyId, 1);
		expect(timedOut.attemptLog[0]).toMatchObject({ status: null, error: 'timeout' });
		await advance(10);
		const delivery = await waitFor('success', async () =>
			(await deliveryLog(company.companyId))[0].status === 'succeeded' ? (await deliveryLog(company.companyId))[0] : undefined
		);
		expect(delivery.attempts).toBe(2);
		expect(receiver.received.map((webhook) => webhook.event.id)).toEqual([timedOut.eventId, timedOut.eventId]);
	});

	it('retries a refused connection', async () => {
		const { company, client } = await env.isolatedCompany();
		const closed = await WebhookReceiver.start();
		const closedUrl = closed.url;
		await closed.close();
		await env.simulator.control('PATCH', `/_sim/companies/${company.companyId}`, { webhookUrl: closedUrl });
		await freeze();
		await startConversation(env.simulator, client, company);
		const delivery = await waitForAttempts(company.companyId, 1);
		expect(delivery).toMatchObject({ status: 'pending', lastStatus: null, lastError: 'connection refused' });
	});

	it('sends the next attempt to the URL the company has by then', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		receiver.script.push(503);
		await freeze();
		await startConversation(env.simulator, client, company);
		await waitForAttempts(company.companyId, 1);
		const moved = await WebhookReceiver.start();
		try {
			await env.simulator.control('PATCH', `/_sim/companies/${company.companyId}`, { webhookUrl: moved.url });
			await advance(10);
			await waitFor('the moved receiver', () => moved.received.length === 1);
			expect(receiver.received).toHaveLength(1);
		} finally {
			await moved.close();
		}
	});
});

describe('injected faults (control API)', () => {
	it('answers the next attempts with an injected status without sending them', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		await env.simulator.control('POST', '/_sim/faults', { companyId: company.companyId, failNext: 2, status: 500 });
		await freeze();
		await startConversation(env.simulator, client, company);
		await waitForAttempts(company.companyId, 1);
		await advance(10);
		await waitForAttempts(company.companyId, 2);
		expect(receiver.received).toHaveLength(0);
		await advance(60);
		const delivery = await waitForAttempts(company.companyId, 3);
		expect(delivery.attemptLog.map((attempt: any) => [attempt.status, attempt.injected])).toEqual([
			[500, 'status'],
			[500, 'status'],
			[200, null]
		]);
		expect(receiver.received).toHaveLength(1);
		expect((await env.simulator.control('GET', `/_sim/faults?companyId=${company.companyId}`)).body.faults).toEqual([]);
	});

	it('drops the answer of a delivered attempt as a time-out, so the same event arrives again', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		await env.simulator.control('POST', '/_sim/faults', { companyId: company.companyId, failNext: 1, timeout: true });
		await freeze();
		await startConversation(env.simulator, client, company);
		await waitForAttempts(company.companyId, 1);
		await advance(10);
		const delivery = await waitForAttempts(company.companyId, 2);
		expect(delivery.attemptLog.map((attempt: any) => attempt.injected)).toEqual(['timeout', null]);
		expect(receiver.received.map((webhook) => webhook.event.id)).toEqual([delivery.eventId, delivery.eventId]);
	});

	it('sends an attempt twice at once, identically', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		await env.simulator.control('POST', '/_sim/faults', { companyId: company.companyId, failNext: 1, duplicate: true });
		await startConversation(env.simulator, client, company);
		const delivery = await waitForAttempts(company.companyId, 1);
		await waitFor('two copies', () => receiver.received.length === 2);
		const [first, second] = receiver.received;
		expect(second.body).toBe(first.body);
		for (const name of ['x-service-event-id', 'x-service-delivery-id', 'x-service-attempt', 'x-service-signature']) {
			expect(second.headers[name]).toBe(first.headers[name]);
		}
		expect(delivery.attemptLog[0]).toMatchObject({ injected: 'duplicate', status: 200, duplicateStatus: 200 });
	});

	it('holds the next events and delivers them newest first', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		const conversation = await startConversation(env.simulator, client, company);
		await waitFor('the start', () => receiver.received.length === 1);
		await env.simulator.control('POST', '/_sim/faults', { companyId: company.companyId, failNext: 3, reorder: true });
		for (const text of ['a', 'b']) await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text });
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(receiver.ofType('message.created')).toHaveLength(0);
		await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text: 'c' });
		await waitFor('three messages', () => receiver.ofType('message.created').length === 3);
		expect(receiver.ofType('message.created').map((webhook) => webhook.event.data.seq)).toEqual([3, 2, 1]);
	});

	it('releases held events when the faults are cleared', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		await env.simulator.control('POST', '/_sim/faults', { companyId: company.companyId, failNext: 5, reorder: true });
		await startConversation(env.simulator, client, company);
		await new Promise((resolve) => setTimeout(resolve, 100));
		expect(receiver.received).toHaveLength(0);
		await env.simulator.control('DELETE', `/_sim/faults?companyId=${company.companyId}`);
		await waitFor('the released event', () => receiver.received.length === 1);
	});

	it('refuses malformed fault requests', async () => {
		const { company } = await env.isolatedCompany();
		const bad = [
			{ companyId: company.companyId, failNext: 0 },
			{ companyId: company.companyId, failNext: 1, status: 200 },
			{ companyId: company.companyId, failNext: 1, status: 500, timeout: true },
			{ companyId: company.companyId, failNext: 1, duplicate: 'yes' },
			{ companyId: company.companyId, failNext: 1, reorder: true }
		];
		for (const body of bad) expect((await env.simulator.control('POST', '/_sim/faults', body)).status, JSON.stringify(body)).toBe(400);
		expect((await env.simulator.control('POST', '/_sim/faults', { companyId: 'cmp_unknown', failNext: 1 })).status).toBe(404);
	});
});
