import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { signingKeyOf } from '$test-support/admin-api';
import { Customer } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, AGENT, useStack } from '$test-support/integration';
import { companyReplies } from '$test-support/replies';
import { leaks } from '$test-support/secrets';
import { parseLog, type LogLine } from '$test-support/server-log';
import { webhookHeaders, webhookSignature } from '$test-support/webhooks';
import { b64uEncode, initCrypto, parseKeyFile } from '../../crypto/index';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const PREVIOUS_SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64url')}`;
const FORGER_SECRET = `whsec_${Buffer.alloc(32, 6).toString('base64url')}`;

describe.each(BACKENDS)('the server\'s log on %s (docs/operations.md "Logs")', (backend) => {
	const output: string[] = [];
	const harness = useStack(backend, {
		onOutputLine: (line) => output.push(line),
		// a previous webhook secret in the environment too, as during a rotation
		inboxEnv: {
			SERVICE_WEBHOOK_SECRET_PREVIOUS: PREVIOUS_SECRET,
			SERVICE_WEBHOOK_SECRET_PREVIOUS_UNTIL: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z')
		}
	});
	/** Strings that must never be in the log, by what they are. */
	const secrets = new Map<string, string>();
	/** Keys that must never be in the log in any spelling. */
	const keys = new Map<string, Uint8Array>();
	let agent: InboxClient;

	beforeAll(async () => {
		await initCrypto();
	});

	it('is one JSON line per event, with the request id a client sent or one made, and never a secret, through a day of work', async () => {
		const stack = harness.stack();
		const url = stack.inbox.url;
		secrets.set('API key', stack.company.apiKey);
		secrets.set('webhook secret', stack.company.webhookSecret);
		secrets.set('previous webhook secret', PREVIOUS_SECRET);
		secrets.set('admin password', ADMIN.password);
		secrets.set('agent password', AGENT.password);

		// sign-in, a failed one, and the agent's key in the roster (signed with signing.key)
		const admin = await harness.login(ADMIN);
		agent = await harness.loginInRoster();
		const wrong = await new InboxClient(url).login(ADMIN.username, 'a wrong password 999');
		expect(wrong.status).toBe(401);
		secrets.set('wrong password', 'a wrong password 999');
		for (const [who, client] of [
			['admin', admin],
			['agent', agent]
		] as const)
			secrets.set(`${who} session cookie`, client.cookie!.split('=')[1]);

		// an agent invitation and a customer invitation, each with its secret in the link's fragment
		const joining = await admin.post('/api/admin/agent-invitations', { displayName: 'Nia New', role: 'agent', validForHours: 1 });
		secrets.set('agent invitation token', joining.body.url.split('#t=')[1]);
		const invited = await agent.post('/api/invites', {}, { 'x-request-id': 'req-logs-invite' });
		expect(invited.headers.get('x-request-id')).toBe('req-logs-invite');
		secrets.set('invite secret', invited.body.link.split('#s=')[1]);

		// a customer message (a webhook from the service) and the agent's reply through the proxy
		const customer = await Customer.redeem(stack.simUrl, { link: invited.body.link });
		const id = customer.conversationId;
		await customer.say('Where is parcel 4417?');
		await expect.poll(async () => (await agent.get(`/api/conversations/${id}/messages`)).body.data?.length, { timeout: 20_000 }).toBe(1);
		secrets.set('customer ciphertext', (await agent.get(`/api/conversations/${id}/messages`)).body.data[0].encryption.ciphertext);
		const body = (await companyReplies(agent, stack.dataDir, id))('It left the depot this morning.');
		secrets.set('reply ciphertext', body.encryption.ciphertext);
		const reply = await agent.post('/api/v1/messages', body, { 'x-request-id': 'req-logs-reply' });
		expect(reply.status).toBe(201);

		// a webhook the service sends with its own request id, and errors: a forged webhook, the signing secret sent by mistake
		const event = JSON.stringify({ id: 'evt_logs_1', type: 'brand.new', createdAt: '2026-11-22T10:00:00Z', data: {} });
		const signed = webhookHeaders(webhookSignature(stack.company.webhookSecret, event));
		const received = await fetch(`${url}/webhooks/service`, {
			method: 'POST',
			headers: { ...signed, 'x-request-id': 'req-logs-webhook' },
			body: event
		});
		expect([received.status, received.headers.get('x-request-id')]).toEqual([200, 'req-logs-webhook']);
		const forged = await fetch(`${url}/webhooks/service`, {
			method: 'POST',
			headers: webhookHeaders(webhookSignature(FORGER_SECRET, event)),
			body: event
		});
		expect(forged.status).toBe(401);
		const signingKey = await signingKeyOf(stack);
		const seed = b64uEncode(signingKey.subarray(0, 32));
		const refused = await agent.get('/api/conversations', { 'x-request-id': seed, 'x-note': seed });
		expect([refused.status, refused.body.error.code]).toEqual([400, 'SECRET_REFUSED']);
		expect(refused.headers.get('x-request-id')).toMatch(/^req_[A-Za-z0-9_-]{16}$/);

		// the company's secret key files, in every spelling
		for (const [name, length] of [
			['private.key', 32],
			['signing.key', 64]
		] as const)
			keys.set(name, parseKeyFile(await readFile(join(stack.dataDir, 'keys', name), 'utf8'), length, name));

		// the processing of the webhook is logged; then a stop, whose lines are read too
		await expect
			.poll(() => output.some((text) => text.includes('"evt_logs_1"') && text.includes('webhook event processed')), { timeout: 20_000 })
			.toBe(true);
		await stack.restartInbox();

		const log = output.join('\n');
		const lines = parseLog(log);
		for (const [what, secret] of secrets) expect(log.includes(secret), what).toBe(false);
		for (const [what, key] of keys) expect(leaks(log, key), what).toEqual([]);

		const find = (wanted: Partial<LogLine>) =>
			lines.filter((line) => Object.entries(wanted).every(([name, value]) => line[name] === value));
		const agentId = (await agent.get('/api/session')).body.account.accountId;
		// the reply: its request, and the call to the service it made, under the id the client sent
		expect(find({ requestId: 'req-logs-reply', msg: 'request' })).toEqual([
			expect.objectContaining({ level: 'info', route: '/api/v1/[...rest]', accountId: agentId, method: 'POST', status: 201 })
		]);
		expect(find({ requestId: 'req-logs-reply', msg: 'service answered' })).toEqual([
			expect.objectContaining({ level: 'info', method: 'POST', path: '/v1/messages', status: 201 })
		]);
		// the invitation's line from deep in its handler carries the request's fields
		expect(find({ requestId: 'req-logs-invite', msg: 'invitation created' })).toEqual([
			expect.objectContaining({ route: '/api/invites', accountId: agentId })
		]);
		// a webhook's processing is logged under the id of the request that stored it, the service's own or one made
		expect(find({ requestId: 'req-logs-webhook' }).map((line) => [line.msg, line.route ?? null, line.event ?? null])).toEqual([
			['request', '/webhooks/service', null],
			['webhook event processed', null, 'evt_logs_1']
		]);
		const deliveries = new Set(find({ msg: 'request', route: '/webhooks/service' }).map((line) => line.requestId));
		const messages = find({ msg: 'webhook event processed', type: 'message.created' });
		expect(messages).toHaveLength(1);
		expect(deliveries.has(messages[0].requestId)).toBe(true);
		// the forged webhook is a warning; a request id that could spell a key was replaced
		expect(find({ msg: 'webhook signature rejected', code: 'SIGNATURE_INVALID' })).toEqual([expect.objectContaining({ level: 'warn' })]);
		expect(find({ msg: 'request', status: 400, route: '/api/conversations' })).toEqual([
			expect.objectContaining({ requestId: refused.headers.get('x-request-id') })
		]);
		// every request has its line; the stop is told, and nothing of it is an error
		expect(new Set(lines.map((line) => line.level))).toEqual(new Set(['info', 'warn']));
		expect(lines.filter((line) => line.msg.startsWith('stopping') && line.signal === 'SIGTERM')).toHaveLength(1);
	});
});
