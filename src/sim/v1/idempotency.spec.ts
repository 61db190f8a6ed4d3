import { describe, expect, it } from 'vitest';
import { registerCompany, useSimulator, V1Client } from '../testing/fixture';

const env = useSimulator();

const conversationCount = async (target = env.client) => (await target.get('/v1/conversations?limit=200')).body.data.length as number;

describe('Idempotency-Key format (contract 5.1, 8)', () => {
	it('is required on every non-GET request and not on GET', async () => {
		const missing = await env.client.post('/v1/invites', {}, { idempotencyKey: null });
		expect([missing.status, missing.body.error.code]).toEqual([400, 'IDEMPOTENCY_KEY_REQUIRED']);
		expect((await env.client.get('/v1/conversations')).status).toBe(200);
	});

	it('takes 1 to 128 printable ASCII characters (0x21–0x7e)', async () => {
		const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
		expect((await env.client.post('/v1/invites', {}, { idempotencyKey: printable })).status).toBe(201);
		expect((await env.client.post('/v1/invites', {}, { idempotencyKey: 'k'.repeat(128) })).status).toBe(201);
		for (const key of ['k'.repeat(129), 'has space', 'tab\there', 'caf\u00e9']) {
			const refused = await env.client.post('/v1/invites', {}, { idempotencyKey: key });
			expect([refused.status, refused.body.error.code], JSON.stringify(key)).toEqual([400, 'INVALID_IDEMPOTENCY_KEY']);
		}
	});

	it('counts an empty Idempotency-Key as given and invalid: 400 INVALID_IDEMPOTENCY_KEY, not IDEMPOTENCY_KEY_REQUIRED', async () => {
		const empty = await env.client.post('/v1/invites', {}, { idempotencyKey: '' });
		expect([empty.status, empty.body.error.code]).toEqual([400, 'INVALID_IDEMPOTENCY_KEY']);
	});

	it('does not look at an Idempotency-Key on a GET, even a malformed one: no replay, nothing kept', async () => {
		const { client } = await env.isolatedCompany();
		const get = (key: string) => client.get('/v1/conversations', { headers: { 'idempotency-key': key } });
		const first = await get('read-1');
		expect(first.status).toBe(200);
		expect(first.headers.get('idempotent-replayed')).toBeNull();
		await client.post('/v1/invites', {});
		const again = await get('read-1');
		expect(again.headers.get('idempotent-replayed')).toBeNull();
		expect(again.body.data).toHaveLength(first.body.data.length + 1);
		for (const key of ['has space', 'k'.repeat(129), '']) expect((await get(key)).status, JSON.stringify(key)).toBe(200);
		const post = await client.post('/v1/invites', {}, { idempotencyKey: 'read-1' });
		expect([post.status, post.headers.get('idempotent-replayed')]).toEqual([201, null]);
	});
});

describe('replay and conflict (contract 5.1 rules 1–2)', () => {
	it('answers the same request with the same status and body and Idempotent-Replayed: true, with one effect; the first answer has no such header', async () => {
		const before = await conversationCount();
		const first = await env.client.post('/v1/invites', { expiresIn: 3600 }, { idempotencyKey: 'replay-1' });
		const again = await env.client.post(
			'/v1/invites',
			{ expiresIn: 3600 },
			{ idempotencyKey: 'replay-1', t: Math.floor(Date.now() / 1000) - 20 }
		);
		expect(first.status).toBe(201);
		expect(first.headers.get('idempotent-replayed')).toBeNull();
		expect(again.status).toBe(201);
		expect(again.body).toEqual(first.body);
		expect(again.headers.get('idempotent-replayed')).toBe('true');
		expect(await conversationCount()).toBe(before + 1);
	});

	it('answers the same key with another body or path with 409 IDEMPOTENCY_CONFLICT, changing nothing', async () => {
		await env.client.post('/v1/invites', { expiresIn: 3600 }, { idempotencyKey: 'conflict-1' });
		const before = await conversationCount();
		const otherBody = await env.client.post('/v1/invites', { expiresIn: 7200 }, { idempotencyKey: 'conflict-1' });
		expect([otherBody.status, otherBody.body.error.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);
		const otherPath = await env.client.post('/v1/conversations/conv_none/close', {}, { idempotencyKey: 'conflict-1' });
		expect([otherPath.status, otherPath.body.error.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);
		expect(await conversationCount()).toBe(before);
	});

	it('replays stored errors too', async () => {
		const first = await env.client.post('/v1/conversations/conv_none/close', {}, { idempotencyKey: 'error-1' });
		const again = await env.client.post('/v1/conversations/conv_none/close', {}, { idempotencyKey: 'error-1' });
		expect([first.status, again.status]).toEqual([404, 404]);
		expect(first.headers.get('idempotent-replayed')).toBeNull();
		expect(again.headers.get('idempotent-replayed')).toBe('true');
	});

	it('keeps keys per company', async () => {
		const other = new V1Client(env.simulator.url, await registerCompany(env.simulator, env.receiver.url));
		const mine = await env.client.post('/v1/invites', {}, { idempotencyKey: 'shared-key' });
		const theirs = await other.post('/v1/invites', {}, { idempotencyKey: 'shared-key' });
		expect(theirs.status).toBe(201);
		expect(theirs.headers.get('idempotent-replayed')).toBeNull();
		expect(theirs.body.conversationId).not.toBe(mine.body.conversationId);
	});

	it('gives two concurrent identical requests one effect and the same answer', async () => {
		const before = await conversationCount();
		const results = await Promise.all(
			Array.from({ length: 6 }, () => env.client.post('/v1/invites', {}, { idempotencyKey: 'concurrent-1' }))
		);
		expect(new Set(results.map((result) => result.body.conversationId)).size).toBe(1);
		expect(results.map((result) => result.status)).toEqual(Array(6).fill(201));
		expect(results.filter((result) => result.headers.get('idempotent-replayed') === 'true')).toHaveLength(5);
		expect(await conversationCount()).toBe(before + 1);
	});
});

describe('retention (24 h per company)', () => {
	it('forgets a key 24 h after its first use: the same request then has a new effect', async () => {
		const first = await env.client.post('/v1/invites', {}, { idempotencyKey: 'expiring-1' });
		await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 24 * 3600 - 60 });
		try {
			const within = await env.client.post('/v1/invites', {}, { idempotencyKey: 'expiring-1' });
			expect(within.body.conversationId).toBe(first.body.conversationId);
			await env.simulator.control('POST', '/_sim/clock', { advanceSeconds: 61 });
			const after = await env.client.post('/v1/invites', {}, { idempotencyKey: 'expiring-1' });
			expect(after.status).toBe(201);
			expect(after.headers.get('idempotent-replayed')).toBeNull();
			expect(after.body.conversationId).not.toBe(first.body.conversationId);
		} finally {
			await env.simulator.control('POST', '/_sim/clock', { offsetSeconds: 0 });
		}
	});
});
