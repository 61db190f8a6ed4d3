import { afterEach, describe, expect, it } from 'vitest';
import { expectError, startConversation, useSimulator, V1Client, waitFor } from '../testing/fixture';

const env = useSimulator();

afterEach(() => env.resetClock());

/** The delivery once its attempt `attempts` is recorded. */
const settled = (client: V1Client, deliveryId: string, attempts: number) =>
	waitFor(`attempt ${attempts} of ${deliveryId}`, async () => {
		const page = await client.get('/v1/deliveries?limit=200');
		const delivery = page.body.data.find((item: { deliveryId: string }) => item.deliveryId === deliveryId);
		return delivery?.attempts >= attempts ? delivery : undefined;
	});

describe('GET /v1/deliveries (contract-gaps §9)', () => {
	it('lists deliveries newest first with their records, filtered by status and paged', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		const conversation = await startConversation(env.simulator, client, company);
		// A second apart, so the order does not depend on ids drawn within one millisecond.
		for (const text of ['one', 'two']) {
			await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 1 });
			await env.simulator.control('POST', `/_sim/customers/${conversation.customerId}/messages`, { text });
		}
		await waitFor('three webhooks', () => receiver.received.length === 3);
		const all = await waitFor('three successes', async () => {
			const page = await client.get('/v1/deliveries?status=succeeded');
			return page.body.data.length === 3 ? page.body : undefined;
		});
		expect(all.data.map((delivery: { eventType: string }) => delivery.eventType)).toEqual([
			'message.created',
			'message.created',
			'conversation.started'
		]);
		expect(all.data[2]).toEqual({
			deliveryId: receiver.received[0].headers['x-service-delivery-id'],
			eventId: receiver.received[0].event.id,
			eventType: 'conversation.started',
			status: 'succeeded',
			attempts: 1,
			lastStatus: 200,
			lastError: null,
			nextAttemptAt: null,
			createdAt: expect.any(String),
			updatedAt: expect.any(String)
		});
		expect((await client.get('/v1/deliveries?status=failed')).body.data).toEqual([]);
		const first = await client.get('/v1/deliveries?limit=2');
		const second = await client.get(`/v1/deliveries?limit=2&cursor=${first.body.nextCursor}`);
		expect([...first.body.data, ...second.body.data].map((delivery: { deliveryId: string }) => delivery.deliveryId)).toEqual(
			all.data.map((delivery: { deliveryId: string }) => delivery.deliveryId)
		);
		expect(second.body.nextCursor).toBeNull();
		expectError(await client.get('/v1/deliveries?status=done'), 400, 'INVALID_REQUEST');
		expect(
			(await env.client.get('/v1/deliveries?limit=200')).body.data.some(
				(item: { deliveryId: string }) => item.deliveryId === all.data[0].deliveryId
			)
		).toBe(false);
	});
});

describe('the retry operation: POST /v1/deliveries/{id}/retry', () => {
	it('re-sends a failed delivery at once (202), and it succeeds', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		receiver.script.push(400);
		await startConversation(env.simulator, client, company);
		const deliveryId = (await waitFor('the webhook', () => receiver.received[0])).headers['x-service-delivery-id'] as string;
		expect((await settled(client, deliveryId, 1)).status).toBe('failed');
		const retried = await client.post(`/v1/deliveries/${deliveryId}/retry`, {});
		expect(retried.status).toBe(202);
		expect(retried.body).toMatchObject({ deliveryId, status: 'pending' });
		expect(await settled(client, deliveryId, 2)).toMatchObject({ status: 'succeeded', attempts: 2, lastStatus: 200 });
		expect(receiver.received.map((webhook) => webhook.headers['x-service-attempt'])).toEqual(['1', '2']);
	});

	it('on a pending delivery: one immediate attempt instead of the schedule, and none after it fails', async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		receiver.defaultStatus = 503;
		await env.simulator.control('POST', '/_sim/clock', { scale: 0 });
		await startConversation(env.simulator, client, company);
		const deliveryId = (await waitFor('the webhook', () => receiver.received[0])).headers['x-service-delivery-id'] as string;
		expect((await settled(client, deliveryId, 1)).status).toBe('pending');
		await client.post(`/v1/deliveries/${deliveryId}/retry`, {});
		expect(await settled(client, deliveryId, 2)).toMatchObject({ status: 'failed', nextAttemptAt: null });
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 3 * 3600 });
		await new Promise((resolve) => setTimeout(resolve, 150));
		expect(receiver.received).toHaveLength(2);
	});

	it("re-sends a succeeded delivery too, and answers 404 for another company's or an unknown delivery", async () => {
		const { company, client, receiver } = await env.isolatedCompany();
		await startConversation(env.simulator, client, company);
		const deliveryId = (await waitFor('the webhook', () => receiver.received[0])).headers['x-service-delivery-id'] as string;
		await settled(client, deliveryId, 1);
		expect((await client.post(`/v1/deliveries/${deliveryId}/retry`, {})).status).toBe(202);
		await waitFor('the copy', () => receiver.received.length === 2);
		expect(receiver.received[1].event.id).toBe(receiver.received[0].event.id);
		expectError(await env.client.post(`/v1/deliveries/${deliveryId}/retry`, {}), 404, 'NOT_FOUND');
		expectError(await client.post('/v1/deliveries/dlv_unknown/retry', {}), 404, 'NOT_FOUND');
	});
});
