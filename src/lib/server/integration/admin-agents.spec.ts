import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { publishRoster } from '../../../cli/demo/roster';
import { newAgent, signedRoster, signingKeyOf } from '$test-support/admin-api';
import { Customer, simControl } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { b64uDecode, fingerprintB64u } from '../../crypto/index';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

describe.each(BACKENDS)(
	'agents, invitations and operations through the admin API on %s (docs/inbox-api.md "Administration")',
	(backend) => {
		const harness = useStack(backend);

		it('lists agents with key, fingerprint, roster membership and last activity; disables, enables, resets and removes them', async () => {
			const admin = await harness.login(ADMIN);
			const agent = await newAgent(admin, 'managed');
			const { next } = (await admin.get('/api/admin/roster')).body;
			const signingKey = await signingKeyOf(harness.stack());
			expect(
				(
					await admin.post(
						'/api/admin/roster',
						signedRoster(harness.stack().company.companyId, next.rosterVersion, [agent.rosterEntry], signingKey)
					)
				).status
			).toBe(201);

			const listed = async () =>
				((await admin.get('/api/admin/agents')).body.data as { accountId: string }[]).find((entry) => entry.accountId === agent.accountId);
			expect(await listed()).toEqual({
				accountId: agent.accountId,
				username: agent.username,
				displayName: expect.any(String),
				role: 'agent',
				disabled: false,
				agentKeyId: agent.agentKeyId,
				agentPublicKey: agent.rosterEntry.publicKey,
				fingerprint: fingerprintB64u(b64uDecode(agent.rosterEntry.publicKey)),
				inRoster: true,
				lastActiveAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
			});

			const self = (await admin.get('/api/session')).body.account.accountId;
			for (const path of [`/api/admin/agents/${self}/disable`]) {
				const refused = await admin.post(path, {});
				expect([refused.status, refused.body.error.code]).toEqual([409, 'STATE_CONFLICT']);
			}
			const selfRemoval = await admin.request('DELETE', `/api/admin/agents/${self}`);
			expect([selfRemoval.status, selfRemoval.body.error.code]).toEqual([409, 'STATE_CONFLICT']);
			expect((await agent.client.get('/api/admin/agents')).body.error.code).toBe('FORBIDDEN');

			expect((await admin.post(`/api/admin/agents/${agent.accountId}/disable`, {})).status).toBe(204);
			expect((await agent.client.get('/api/session')).body.error.code).toBe('UNAUTHENTICATED');
			expect((await new InboxClient(admin.url).login(agent.username, agent.password)).body.error.code).toBe('INVALID_CREDENTIALS');
			expect(await listed()).toMatchObject({ disabled: true });
			expect((await admin.get('/api/admin/roster')).body.next.agents.map((entry: { accountId: string }) => entry.accountId)).not.toContain(
				agent.accountId
			);

			expect((await admin.post(`/api/admin/agents/${agent.accountId}/enable`, {})).status).toBe(204);
			const back = await InboxClient.loggedIn(admin.url, agent.username, agent.password);
			expect((await admin.post(`/api/admin/agents/${agent.accountId}/reset-key`, {})).status).toBe(204);
			expect((await back.get('/api/session')).body.account.agentKeyId).toBeNull();
			expect(await listed()).toMatchObject({ agentKeyId: null, fingerprint: null, inRoster: false });

			expect((await admin.request('DELETE', `/api/admin/agents/${agent.accountId}`)).status).toBe(204);
			expect(await listed()).toBeUndefined();
			expect((await back.get('/api/session')).body.error.code).toBe('UNAUTHENTICATED');
			expect((await new InboxClient(admin.url).login(agent.username, agent.password)).status).toBe(401);
			expect((await admin.post(`/api/admin/agents/${agent.accountId}/disable`, {})).status).toBe(404);
		});

		it('shows the roster membership of a roster another tool signed and uploaded at once, without the roster page', async () => {
			const admin = await harness.login(ADMIN);
			const agent = await newAgent(admin, 'elsewhere');
			const { stack } = harness;
			await publishRoster(stack().company, join(stack().dataDir, 'keys', 'signing.key'), [agent.rosterEntry]);
			const listed = ((await admin.get('/api/admin/agents')).body.data as { accountId: string; inRoster: boolean }[]).find(
				(entry) => entry.accountId === agent.accountId
			);
			expect(listed?.inRoster).toBe(true);
		});

		it('invites with a one-time link: the person picks a username and password, gets a session, and the link is spent', async () => {
			const admin = await harness.login(ADMIN);
			const invited = await admin.post('/api/admin/agent-invitations', { displayName: 'Nia New', role: 'admin', validForHours: 24 });
			expect(invited.status).toBe(201);
			expect(invited.body.url).toMatch(new RegExp(`^${admin.url}/join#t=[A-Za-z0-9_-]{43}$`));
			const token = invited.body.url.split('#t=')[1];
			for (const bad of [{ validForHours: 0 }, { validForHours: 169 }, { role: 'owner' }, { displayName: '' }]) {
				expect(
					(await admin.post('/api/admin/agent-invitations', { displayName: 'x', role: 'agent', validForHours: 1, ...bad })).status
				).toBe(400);
			}

			const person = new InboxClient(admin.url);
			const weak = await person.post('/api/join', { token, username: 'nia', password: 'short' });
			expect([weak.status, weak.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
			const joined = await person.post('/api/join', { token, username: 'nia', password: 'nia chose this password' });
			expect(joined.status).toBe(201);
			expect(joined.body.account).toMatchObject({ username: 'nia', displayName: 'Nia New', role: 'admin', agentKeyId: null });
			expect((await person.get('/api/admin/agents')).status).toBe(200);

			const again = await new InboxClient(admin.url).post('/api/join', { token, username: 'nia2', password: 'another good password' });
			expect([again.status, again.body.error.code]).toEqual([410, 'INVITATION_EXPIRED']);
			const unknown = await new InboxClient(admin.url).post('/api/join', {
				token: 'A'.repeat(43),
				username: 'nia3',
				password: 'another good password'
			});
			expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
			expect((await InboxClient.loggedIn(admin.url, 'nia', 'nia chose this password')).cookie).toBeDefined();
		});

		it('lists pending invitation links with their expiry; a revoked link stops working at once', async () => {
			const admin = await harness.login(ADMIN);
			const invited = await admin.post('/api/admin/agent-invitations', { displayName: 'Rex Revoked', role: 'agent', validForHours: 2 });
			const pending = async () =>
				((await admin.get('/api/admin/agent-invitations')).body.data as { invitationId: string }[]).find(
					(item) => item.invitationId === invited.body.invitationId
				);
			expect(await pending()).toEqual({
				invitationId: invited.body.invitationId,
				displayName: 'Rex Revoked',
				role: 'agent',
				createdAt: expect.stringMatching(/Z$/),
				expiresAt: invited.body.expiresAt,
				createdByName: 'Grace Admin'
			});
			const agent = await harness.login();
			expect((await agent.get('/api/admin/agent-invitations')).body.error.code).toBe('FORBIDDEN');
			expect((await agent.request('DELETE', `/api/admin/agent-invitations/${invited.body.invitationId}`)).body.error.code).toBe(
				'FORBIDDEN'
			);

			expect((await admin.request('DELETE', `/api/admin/agent-invitations/${invited.body.invitationId}`)).status).toBe(204);
			expect(await pending()).toBeUndefined();
			const token = invited.body.url.split('#t=')[1];
			const late = await new InboxClient(admin.url).post('/api/join', { token, username: 'rex', password: 'rex would choose this' });
			expect([late.status, late.body.error.code]).toEqual([410, 'INVITATION_EXPIRED']);
			expect((await admin.request('DELETE', `/api/admin/agent-invitations/${invited.body.invitationId}`)).status).toBe(404);
			const audit = await admin.get('/api/admin/audit?action=agent.invitation_revoked');
			expect(audit.body.data[0]).toMatchObject({ actorName: 'Grace Admin', target: invited.body.invitationId });
		});

		it('lists failed deliveries and retries them; lists received events with their state; counts trust states', async () => {
			const stack = harness.stack();
			const admin = await harness.login(ADMIN);
			const customer = await Customer.redeem(stack.simUrl, { link: (await admin.post('/api/invites', {})).body.link });
			await expect
				.poll(async () => (await admin.get(`/api/conversations/${customer.conversationId}`)).body.trust, { timeout: 20_000 })
				.toBe('verified');

			await simControl(stack.simUrl).control('POST', '/_sim/faults', { companyId: stack.company.companyId, failNext: 1, status: 400 });
			const lost = await customer.say('refused once');
			const failed = async () =>
				(await admin.get('/api/admin/deliveries?status=failed')).body.data as { eventType: string; deliveryId: string }[];
			await expect.poll(async () => (await failed()).length, { timeout: 20_000 }).toBeGreaterThan(0);
			const [delivery] = await failed();
			expect(delivery).toMatchObject({ eventType: 'message.created', status: 'failed', lastStatus: 400 });
			expect((await admin.get('/api/admin/deliveries?status=lost')).status).toBe(400);

			const retried = await admin.post(`/api/admin/deliveries/${delivery.deliveryId}/retry`, {});
			expect(retried.status).toBe(202);
			expect(retried.body.deliveryId).toBe(delivery.deliveryId);
			await expect
				.poll(
					async () =>
						(await admin.get(`/api/conversations/${customer.conversationId}/messages`)).body.data.map(
							(message: { messageId: string }) => message.messageId
						),
					{ timeout: 20_000 }
				)
				.toContain(lost.messageId);

			const events = (await admin.get('/api/admin/events?limit=200')).body.data as { eventId: string; type: string; state: string }[];
			expect(events.find((event) => event.type === 'message.created')).toMatchObject({ state: 'processed', attempts: expect.any(Number) });
			expect((await admin.get('/api/admin/events?state=received')).status).toBe(200);
			expect((await admin.get('/api/admin/events?state=nonsense')).status).toBe(400);
			const paged = (await admin.get('/api/admin/events?limit=1')).body;
			expect(paged.data).toHaveLength(1);
			expect((await admin.get(`/api/admin/events?limit=1&before=${paged.nextCursor}`)).body.data[0].seq).toBeLessThan(paged.data[0].seq);

			const trust = (await admin.get('/api/admin/trust')).body;
			expect(trust.data.find((entry: { conversationId: string }) => entry.conversationId === customer.conversationId)).toMatchObject({
				trust: 'verified',
				status: 'active',
				keyVersion: 1
			});
			expect(trust.counts.verified).toBeGreaterThanOrEqual(1);
			expect(Object.keys(trust.counts).sort()).toEqual(['binding_invalid', 'unverified', 'verified']);
		});
	}
);
