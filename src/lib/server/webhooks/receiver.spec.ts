import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { quietLogger } from '$test-support/loggers';
import { serveHandler, type ServedHandler } from '$test-support/serve-handler';
import { postWebhook, webhookHeaders, webhookSignature, webhookVectors } from '$test-support/webhooks';
import { initCrypto } from '../../crypto/index';
import type { Database } from '../db/database';
import type { Logger } from '../log';
import { WebhookSecrets } from '../keys/webhook-secrets';
import { WebhookReceiver } from './receiver';

const vectors = webhookVectors();
const vectorSecret = vectors[0].secret;
const previousSecret = `whsec_${'P'.repeat(42)}A`;

function event(id: string, extra: Record<string, unknown> = {}): string {
	return JSON.stringify({ id, type: 'message.created', createdAt: '2026-11-22T10:00:00Z', data: { conversationId: 'conv_1', ...extra } });
}

async function storedEvents(db: Database): Promise<{ event_id: string; raw_body: string }[]> {
	return db.query('select event_id, raw_body from webhook_events order by seq');
}

describe.each(BACKENDS)('webhook receiver on %s, over HTTP (contract 5.2)', (backend) => {
	const databases = useDatabases(backend);
	let db: Database;
	let clock = 0;
	let served: ServedHandler;
	let woken = 0;

	beforeAll(async () => {
		await initCrypto();
		db = await databases.open();
		const receiver = new WebhookReceiver({
			db,
			secrets: () => [vectorSecret, previousSecret],
			now: () => clock,
			log: quietLogger,
			onStored: () => woken++
		});
		served = await serveHandler((request) => receiver.handle(request));
	}, 60_000);
	afterAll(() => served?.close());

	it('answers every webhook case of the public HMAC vectors: valid → 200, each invalid → 401 with its code', async () => {
		for (const vector of vectors) {
			clock = vector.now * 1000;
			const response = await fetch(served.url, { method: 'POST', headers: webhookHeaders(vector.header), body: vector.body });
			const answer = await response.json();
			if (vector.error) {
				expect({ name: vector.name, status: response.status, code: answer.error?.code }).toEqual({
					name: vector.name,
					status: 401,
					code: vector.error
				});
			} else {
				expect({ name: vector.name, status: response.status }).toEqual({ name: vector.name, status: 200 });
			}
		}
		const stored = await storedEvents(db);
		// The valid cases carry one event: stored once, byte for byte as received.
		expect(stored).toEqual([{ event_id: 'evt_WR-qdcHF70rn', raw_body: vectors[0].body }]);
	});

	it('stores an event once: a repeat and concurrent repeats are acknowledged as duplicates', async () => {
		clock = Date.now();
		const before = woken;
		const body = event('evt_concurrent');
		const answers = await Promise.all(
			Array.from({ length: 12 }, () => postWebhook(served.url, vectorSecret, body, { t: Math.floor(clock / 1000) }))
		);
		const results = await Promise.all(answers.map(async (answer) => ({ status: answer.status, ...(await answer.json()) })));
		expect(results.every((result) => result.status === 200 && result.received === true)).toBe(true);
		expect(results.filter((result) => result.duplicate === false)).toHaveLength(1);
		const again = await postWebhook(served.url, vectorSecret, body, { t: Math.floor(clock / 1000) });
		expect(await again.json()).toEqual({ received: true, duplicate: true });
		expect((await storedEvents(db)).filter((stored) => stored.event_id === 'evt_concurrent')).toHaveLength(1);
		expect(woken - before).toBe(1);
	});

	it('accepts the previous secret during a rotation, and nothing else', async () => {
		clock = Date.now();
		const t = Math.floor(clock / 1000);
		expect((await postWebhook(served.url, previousSecret, event('evt_previous'), { t })).status).toBe(200);
		const other = await postWebhook(served.url, `whsec_${'Q'.repeat(42)}A`, event('evt_other'), { t });
		expect(other.status).toBe(401);
		expect((await other.json()).error.code).toBe('SIGNATURE_INVALID');
	});

	it('takes the event id from the header when the body has none; refuses a body without any, and oversized bodies', async () => {
		clock = Date.now();
		const t = Math.floor(clock / 1000);
		const noId = JSON.stringify({ type: 'brand.new', data: {} });
		expect((await postWebhook(served.url, vectorSecret, noId, { t, eventId: 'evt_fromheader' })).status).toBe(200);
		const refused = await postWebhook(served.url, vectorSecret, noId, { t });
		expect(refused.status).toBe(400);
		expect((await refused.json()).error.code).toBe('INVALID_REQUEST');
		const huge = JSON.stringify({ id: 'evt_huge', pad: 'x'.repeat(1024 * 1024) });
		expect((await postWebhook(served.url, vectorSecret, huge, { t })).status).toBe(413);
		expect((await storedEvents(db)).map((stored) => stored.event_id)).toContain('evt_fromheader');
		expect((await storedEvents(db)).map((stored) => stored.event_id)).not.toContain('evt_huge');
	});

	it('stores a body without an id once: replayed under other X-Service-Event-Ids, at once or later, or retried with a new signature time', async () => {
		clock = Date.now();
		const t = Math.floor(clock / 1000);
		const before = woken;
		const body = JSON.stringify({ type: 'message.created', data: { conversationId: 'conv_idless', text: 'once' } });
		const answer = async (response: Promise<Response>) => {
			const settled = await response;
			return { status: settled.status, ...(await settled.json()) };
		};
		// The same signed bytes (one t), each under its own unsigned header id, all at once.
		const replays = await Promise.all(
			Array.from({ length: 6 }, (_, n) => answer(postWebhook(served.url, vectorSecret, body, { t, eventId: `evt_replay${n}` })))
		);
		expect(replays.every((result) => result.status === 200 && result.received === true)).toBe(true);
		expect(replays.filter((result) => result.duplicate === false)).toHaveLength(1);
		expect(await answer(postWebhook(served.url, vectorSecret, body, { t, eventId: 'evt_replay_later' }))).toEqual({
			status: 200,
			received: true,
			duplicate: true
		});
		// The service's retry signs the same body at another time.
		expect(await answer(postWebhook(served.url, vectorSecret, body, { t: t + 7, eventId: 'evt_replay_retry' }))).toEqual({
			status: 200,
			received: true,
			duplicate: true
		});
		expect((await storedEvents(db)).filter((stored) => stored.raw_body === body)).toHaveLength(1);
		expect(woken - before).toBe(1);

		// Another body without an id is another event.
		const other = JSON.stringify({ type: 'message.created', data: { conversationId: 'conv_idless', text: 'twice' } });
		expect(await answer(postWebhook(served.url, vectorSecret, other, { t, eventId: 'evt_other_body' }))).toEqual({
			status: 200,
			received: true,
			duplicate: false
		});
	});

	it('stores the delivery id, attempt and type as sent within their limits, and logs a refusal with its ids but never the body', async () => {
		clock = Date.now();
		const t = Math.floor(clock / 1000);
		const lines: { message: string; fields: Record<string, unknown> }[] = [];
		const recording: Logger = { info() {}, warn: (message, fields = {}) => lines.push({ message, fields }), error() {} };
		const receiver = new WebhookReceiver({ db, secrets: () => [vectorSecret], now: () => clock, log: recording });
		const server = await serveHandler((request) => receiver.handle(request));
		try {
			const send = (body: string, headers: Record<string, string>, secret = vectorSecret) =>
				fetch(server.url, { method: 'POST', headers: { ...webhookHeaders(webhookSignature(secret, body, t)), ...headers }, body });
			const longType = 'x'.repeat(300);
			const longId = `dlv_${'d'.repeat(200)}`;
			const body = JSON.stringify({ id: 'evt_recorded', type: longType, data: {} });
			expect((await send(body, { 'x-service-delivery-id': longId, 'x-service-attempt': '12' })).status).toBe(200);
			for (const [id, attempt] of [
				['evt_attempt_word', 'seven'],
				['evt_attempt_sign', '+7'],
				['evt_attempt_long', '1234567890']
			]) {
				expect((await send(JSON.stringify({ id, type: 't', data: {} }), { 'x-service-attempt': attempt })).status).toBe(200);
			}
			const rows = await db.query<{ event_id: string; event_type: string; delivery_id: string; attempt: number | null }>(
				`select event_id, event_type, delivery_id, attempt from webhook_events where event_id in ('evt_recorded', 'evt_attempt_word', 'evt_attempt_sign', 'evt_attempt_long') order by event_id`
			);
			expect(rows).toEqual([
				{ event_id: 'evt_attempt_long', event_type: 't', delivery_id: 'dlv_test1', attempt: null },
				{ event_id: 'evt_attempt_sign', event_type: 't', delivery_id: 'dlv_test1', attempt: null },
				{ event_id: 'evt_attempt_word', event_type: 't', delivery_id: 'dlv_test1', attempt: null },
				{ event_id: 'evt_recorded', event_type: 'x'.repeat(200), delivery_id: longId.slice(0, 128), attempt: 12 }
			]);

			const secretBody = JSON.stringify({ id: 'evt_forged', type: 't', data: { text: 'do not log me' } });
			const forged = await send(
				secretBody,
				{ 'x-service-delivery-id': longId, 'x-service-event-id': `evt_${'e'.repeat(200)}` },
				`whsec_${'F'.repeat(43)}`
			);
			expect(forged.status).toBe(401);
			expect(lines.at(-1)).toEqual({
				message: 'webhook signature rejected',
				fields: {
					code: 'SIGNATURE_INVALID',
					reason: 'the webhook signature does not match',
					delivery: longId.slice(0, 128),
					event: `evt_${'e'.repeat(124)}`
				}
			});
			const notJson = await send('{"id":', { 'x-service-delivery-id': 'dlv_broken' });
			expect(notJson.status).toBe(400);
			expect(lines.at(-1)).toMatchObject({ message: 'webhook body refused', fields: { delivery: 'dlv_broken', event: null } });
			expect(JSON.stringify(lines)).not.toContain('do not log me');
		} finally {
			await server.close();
		}
	});

	it('a webhook signed with a secret being rotated waits for the rotation to be saved instead of being refused', async () => {
		clock = Date.now();
		const t = Math.floor(clock / 1000);
		const secrets = await WebhookSecrets.load({ current: vectorSecret, previous: null }, db, { now: () => clock, log: quietLogger });
		const rotating = new WebhookReceiver({
			db,
			secrets: () => secrets.accepted(),
			refreshSecrets: () => secrets.refresh(),
			now: () => clock,
			log: quietLogger
		});
		const server = await serveHandler((request) => rotating.handle(request));
		try {
			const next = `whsec_${'N'.repeat(42)}A`;
			let portalAnswers!: () => void;
			const rotation = secrets.rotate(
				() => new Promise((resolve) => (portalAnswers = () => resolve({ webhookSecret: next, previousValidUntil: '2099-01-01T00:00:00Z' })))
			);
			const early = postWebhook(server.url, next, event('evt_signed_with_the_new_secret'), { t });
			await new Promise((resolve) => setTimeout(resolve, 200));
			portalAnswers();
			await rotation;
			expect((await early).status).toBe(200);
			expect((await postWebhook(server.url, vectorSecret, event('evt_signed_with_the_previous'), { t })).status).toBe(200);
			const stranger = await postWebhook(server.url, `whsec_${'S'.repeat(42)}A`, event('evt_stranger'), { t });
			expect([stranger.status, (await stranger.json()).error.code]).toEqual([401, 'SIGNATURE_INVALID']);
		} finally {
			await server.close();
			await secrets.stop();
		}
	});

	it('reads the secrets again only for a signature no secret verifies, and refuses when that read fails', async () => {
		clock = Date.now();
		let refreshes = 0;
		let refresh = async () => (refreshes++, false);
		const receiver = new WebhookReceiver({
			db,
			secrets: () => [vectorSecret],
			refreshSecrets: () => refresh(),
			now: () => clock,
			log: quietLogger
		});
		const server = await serveHandler((request) => receiver.handle(request));
		try {
			const stale = await postWebhook(server.url, vectorSecret, event('evt_stale'), { t: Math.floor(clock / 1000) - 3600 });
			expect(stale.status).toBe(401);
			expect((await stale.json()).error.code).not.toBe('SIGNATURE_INVALID');
			expect(refreshes).toBe(0);
			const stranger = await postWebhook(server.url, previousSecret, event('evt_stranger_once'), { t: Math.floor(clock / 1000) });
			expect([stranger.status, (await stranger.json()).error.code, refreshes]).toEqual([401, 'SIGNATURE_INVALID', 1]);

			refresh = () => Promise.reject(new Error('the database is down'));
			const unchecked = await postWebhook(server.url, previousSecret, event('evt_unchecked'), { t: Math.floor(clock / 1000) });
			expect([unchecked.status, await unchecked.json()]).toEqual([
				401,
				{ error: { code: 'SIGNATURE_INVALID', message: 'the signature could not be checked' } }
			]);
		} finally {
			await server.close();
		}
	});

	it('answers 503, never 2xx, when the database fails, so the service retries', async () => {
		clock = Date.now();
		const t = Math.floor(clock / 1000);
		if (backend === 'PostgreSQL') await databases.cluster().stop();
		else await db.close();
		const response = await postWebhook(served.url, vectorSecret, event('evt_while_down'), { t });
		expect(response.status).toBe(503);
		expect((await response.json()).error).toEqual({ code: 'UNAVAILABLE', message: 'the event could not be stored; retry later' });
		if (backend === 'PostgreSQL') {
			await databases.cluster().start();
			await expect
				.poll(async () => (await postWebhook(served.url, vectorSecret, event('evt_while_down'), { t })).status, { timeout: 20_000 })
				.toBe(200);
			expect((await storedEvents(db)).filter((stored) => stored.event_id === 'evt_while_down')).toHaveLength(1);
		}
	});
});
