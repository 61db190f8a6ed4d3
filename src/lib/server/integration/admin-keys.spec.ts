import { describe, expect, it, vi } from 'vitest';
import { newAgent, settledGrantJob, signedRoster, signingKeyOf } from '$test-support/admin-api';
import { Customer, simControl } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { b64uDecode, fingerprintB64u, generateEd25519KeyPair, openConversationKey, signStatement } from '../../crypto/index';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 180_000 });

describe.each(BACKENDS)('company key and webhook secret rotation through the admin API on %s (contract 5.1, 6.6)', (backend) => {
	const harness = useStack(backend);

	it('rotates the company key in two steps; earlier conversations still open with the previous key, new links carry the new one', async () => {
		const stack = harness.stack();
		const admin = await harness.login(ADMIN);
		const signingKey = await signingKeyOf(stack);
		const invited = await admin.post('/api/invites', {});
		const earlier = await Customer.redeem(stack.simUrl, { link: invited.body.link });
		const before = (await admin.get('/api/admin/company-key')).body;
		expect(before).toMatchObject({ pending: null, previousVersions: [] });

		const started = await admin.post('/api/admin/company-key/rotation', {});
		expect(started.status).toBe(201);
		expect(started.body).toMatchObject({
			companyId: stack.company.companyId,
			fromKeyVersion: before.keyVersion,
			fromPublicKey: before.publicKey,
			toKeyVersion: before.keyVersion + 1
		});
		expect(started.body.statement).toBe(
			`Service|v1|company-key-rotation|${stack.company.companyId}|${before.keyVersion}|${before.publicKey}|${before.keyVersion + 1}|${started.body.toPublicKey}`
		);
		expect((await admin.post('/api/admin/company-key/rotation', {})).body.toPublicKey).toBe(started.body.toPublicKey);
		expect((await admin.get('/api/company')).body.keyVersion).toBe(before.keyVersion);

		const confirm = (rotationSignature: string, toKeyVersion = started.body.toKeyVersion) =>
			admin.post('/api/admin/company-key/rotation/confirm', { toKeyVersion, rotationSignature });
		const foreign = await confirm(signStatement(started.body.statement, generateEd25519KeyPair().secretKey));
		expect([foreign.status, foreign.body.error.code]).toEqual([400, 'SIGNATURE_INVALID']);
		const stale = await confirm(signStatement(started.body.statement, signingKey), before.keyVersion);
		expect([stale.status, stale.body.error.code]).toEqual([409, 'STATE_CONFLICT']);
		expect((await admin.get('/api/company')).body.keyVersion).toBe(before.keyVersion);

		const rotationSignature = signStatement(started.body.statement, signingKey);
		const confirmed = await confirm(rotationSignature);
		expect(confirmed.status).toBe(200);
		expect(confirmed.body).toEqual({
			keyVersion: before.keyVersion + 1,
			publicKey: started.body.toPublicKey,
			fingerprint: fingerprintB64u(b64uDecode(started.body.toPublicKey)),
			rotationSignature,
			portal: 'entered'
		});
		expect((await admin.get('/api/admin/company-key')).body).toMatchObject({
			keyVersion: before.keyVersion + 1,
			previousVersions: [before.keyVersion],
			pending: null
		});
		const atPortal = await simControl(stack.simUrl).control('GET', `/_sim/companies/${stack.company.companyId}`);
		expect(atPortal.body).toMatchObject({ keyVersion: before.keyVersion + 1, publicKey: started.body.toPublicKey });

		// New invitations carry the new key's fingerprint, and the customer's app accepts it.
		const fresh = await admin.post('/api/invites', {});
		expect(fresh.body.link.endsWith(`&fp=${confirmed.body.fingerprint}`)).toBe(true);
		const newcomer = await Customer.redeem(stack.simUrl, { link: fresh.body.link });
		await expect
			.poll(async () => (await admin.get(`/api/conversations/${newcomer.conversationId}`)).body.trust, { timeout: 20_000 })
			.toBe('verified');

		// A grant after the rotation opens the earlier conversation with the previous key.
		const agent = await newAgent(admin, 'after-rotation');
		const { next } = (await admin.get('/api/admin/roster')).body;
		const uploaded = await admin.post(
			'/api/admin/roster',
			signedRoster(stack.company.companyId, next.rosterVersion, [agent.rosterEntry], signingKey)
		);
		expect(await settledGrantJob(admin, uploaded.body.grantJob.jobId)).toMatchObject({ state: 'done', failed: 0 });
		const [wrap] = (await agent.client.get(`/api/conversations/${earlier.conversationId}`)).body.agentWraps;
		expect(openConversationKey(wrap.wrap, earlier.conversationId, [agent.keyPair])).toHaveLength(32);
	});

	it('rotates the webhook secret with an overlap: events before, during and after are each processed once, also after a restart', async () => {
		const stack = harness.stack();
		const admin = await harness.login(ADMIN);
		const customer = await Customer.redeem(stack.simUrl, { link: (await admin.post('/api/invites', {})).body.link });
		const say = (label: string, count: number) => Promise.all(Array.from({ length: count }, (_, i) => customer.say(`${label} ${i}`)));

		await say('before', 10);
		const [rotated] = await Promise.all([admin.post('/api/admin/webhook-secret/rotation', {}), say('during', 20)]);
		expect(rotated.status).toBe(200);
		expect(Object.keys(rotated.body).sort()).toEqual(['previousValidUntil', 'rotatedAt']);
		expect(JSON.stringify(rotated.body)).not.toContain('whsec_');
		await say('after', 10);
		await stack.restartInbox();
		await say('after the restart', 5);

		const reader = await InboxClient.loggedIn(stack.inbox.url, ADMIN.username, ADMIN.password);
		await expect
			.poll(async () => (await reader.get(`/api/conversations/${customer.conversationId}/messages?limit=500`)).body.data.length, {
				timeout: 60_000
			})
			.toBe(45);
		const stored = (await reader.get(`/api/conversations/${customer.conversationId}/messages?limit=500`)).body.data;
		expect(new Set(stored.map((message: { messageId: string }) => message.messageId)).size).toBe(45);
		const deliveries = await simControl(stack.simUrl).control(
			'GET',
			`/_sim/deliveries?companyId=${stack.company.companyId}&conversationId=${customer.conversationId}&eventType=message.created`
		);
		expect(deliveries.body.data).toHaveLength(45);
		expect(deliveries.body.data.filter((delivery: { status: string }) => delivery.status !== 'succeeded')).toEqual([]);
		const failedEvents = (await reader.get('/api/admin/events?state=failed')).body.data;
		expect(failedEvents).toEqual([]);
		// Requests are signed with the new secret: the service still serves the inbox after the restart.
		expect((await reader.post('/api/invites', {})).status).toBe(201);
	});
});
