import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { newAgent, settledGrantJob, signedRoster, signingKeyOf, signingSecretSpellings } from '$test-support/admin-api';
import { Customer, simControl } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { leaks } from '$test-support/secrets';
import { callService } from '$test-support/service-api';
import { publishRoster } from '../../../cli/demo/roster';
import { b64uDecode, generateEd25519KeyPair, generateX25519KeyPair, b64uEncode, openConversationKey } from '../../crypto/index';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 180_000 });

describe.each(BACKENDS)('rosters, grants and the signing secret through the admin API on %s (contract 2.9, 6.7)', (backend) => {
	const harness = useStack(backend);
	const companyId = () => harness.stack().company.companyId;

	const rogue = () => ({ agentKeyId: 'agk_rogue0000', publicKey: b64uEncode(generateX25519KeyPair().publicKey) });

	it('a roster the service serves that does not verify with signing.pub never becomes the latest nor sets the version the inbox requires; admins see an alert', async () => {
		const admin = await harness.login(ADMIN);
		const signingKey = await signingKeyOf(harness.stack());
		const before = (await admin.get('/api/admin/roster')).body;
		const version = before.next.rosterVersion;
		const forged = signedRoster(companyId(), version + 5, [rogue()], generateEd25519KeyPair().secretKey);
		const control = simControl(harness.stack().simUrl);
		expect((await control.control('POST', `/_sim/companies/${companyId()}/served-roster`, forged)).status).toBe(200);

		const overview = (await admin.get('/api/admin/roster')).body;
		expect(overview.latest?.rosterVersion ?? null).toBe(before.latest?.rosterVersion ?? null);
		// Proposed: what a service that holds it takes next. Required: only above the latest verified.
		expect(overview.next.rosterVersion).toBe(version + 6);
		expect(overview.unverifiedAtService).toMatchObject({ rosterVersion: version + 5 });
		expect(overview.history.map((roster: { rosterVersion: number }) => roster.rosterVersion)).not.toContain(version + 5);

		// This service only lies in what it serves, and still counts from the rosters it accepted.
		const agent = await newAgent(admin, 'honest');
		const uploaded = await admin.post('/api/admin/roster', signedRoster(companyId(), version, [agent.rosterEntry], signingKey));
		expect(uploaded.status).toBe(201);
		const after = (await admin.get('/api/admin/roster')).body;
		expect([after.latest.rosterVersion, after.unverifiedAtService]).toEqual([version, null]);
	});

	it('while the service holds a roster that does not verify, the admin uploads the version it takes next, none at or below the latest verified; one that verifies again wants exactly + 1', async () => {
		const admin = await harness.login(ADMIN);
		const signingKey = await signingKeyOf(harness.stack());
		const agent = await newAgent(admin, 'unlocked');
		const verified = (await admin.get('/api/admin/roster')).body.next.rosterVersion;
		expect((await admin.post('/api/admin/roster', signedRoster(companyId(), verified, [], signingKey))).status).toBe(201);
		// A broken service, or an inbox whose database is behind it: its latest roster does not verify with signing.pub.
		const held = signedRoster(companyId(), verified + 3, [rogue()], generateEd25519KeyPair().secretKey);
		const control = simControl(harness.stack().simUrl);
		expect((await control.control('POST', `/_sim/companies/${companyId()}/held-roster`, held)).status).toBe(201);
		const overview = (await admin.get('/api/admin/roster')).body;
		expect([overview.latest.rosterVersion, overview.unverifiedAtService?.rosterVersion, overview.next.rosterVersion]).toEqual([
			verified,
			verified + 3,
			verified + 4
		]);

		for (const stale of new Set([1, verified])) {
			const refused = await admin.post('/api/admin/roster', signedRoster(companyId(), stale, [agent.rosterEntry], signingKey));
			expect([refused.status, refused.body.error?.code, refused.body.error?.message]).toEqual([
				409,
				'ROSTER_VERSION_CONFLICT',
				`rosterVersion must be above ${verified} (the latest verified; the service holds version ${verified + 3}, which does not verify), got ${stale}`
			]);
		}
		expect((await callService(harness.stack(), 'GET', '/v1/roster')).body).toEqual(held);

		const uploaded = await admin.post('/api/admin/roster', signedRoster(companyId(), verified + 4, [agent.rosterEntry], signingKey));
		expect(uploaded.status).toBe(201);
		expect((await callService(harness.stack(), 'GET', '/v1/roster')).body).toMatchObject({
			rosterVersion: verified + 4,
			agents: [agent.rosterEntry]
		});
		const after = (await admin.get('/api/admin/roster')).body;
		expect([after.latest.rosterVersion, after.latest.uploadedByName, after.unverifiedAtService, after.next.rosterVersion]).toEqual([
			verified + 4,
			ADMIN.displayName,
			null,
			verified + 5
		]);
		expect(uploaded.body.grantJob).toMatchObject({ rosterVersion: verified + 4, agentKeyIds: [agent.agentKeyId] });
		expect(await settledGrantJob(admin, uploaded.body.grantJob.jobId)).toMatchObject({ state: 'done', failed: 0 });

		const skipping = await admin.post('/api/admin/roster', signedRoster(companyId(), verified + 6, [agent.rosterEntry], signingKey));
		expect([skipping.status, skipping.body.error?.message]).toEqual([
			409,
			`rosterVersion must be ${verified + 5} (the latest accepted + 1), got ${verified + 6}`
		]);
		expect((await admin.post('/api/admin/roster', signedRoster(companyId(), verified + 5, [agent.rosterEntry], signingKey))).status).toBe(
			201
		);
	});

	it('a roster signed with signing.key is checked, uploaded, kept, and grants earlier conversations to its new agents only', async () => {
		const admin = await harness.login(ADMIN);
		const signingKey = await signingKeyOf(harness.stack());
		const first = await newAgent(admin, 'early');
		const invited = await admin.post('/api/invites', {});
		const earlier = await Customer.redeem(harness.stack().simUrl, { link: invited.body.link });

		const overview = await admin.get('/api/admin/roster');
		expect(overview.body.next).toMatchObject({ companyId: companyId() });
		expect(overview.body.next.agents.map((agent: { agentKeyId: string }) => agent.agentKeyId)).toContain(first.agentKeyId);
		const version = overview.body.next.rosterVersion;

		const agentStream = await first.client.events();
		await agentStream.waitFor((event) => event.event === 'ready');
		const uploaded = await admin.post('/api/admin/roster', signedRoster(companyId(), version, [first.rosterEntry], signingKey));
		expect(uploaded.status).toBe(201);
		expect(uploaded.body.roster).toMatchObject({
			rosterVersion: version,
			agents: [{ agentKeyId: first.agentKeyId, accountId: first.accountId }]
		});
		expect(uploaded.body.grantJob).toMatchObject({ rosterVersion: version, agentKeyIds: [first.agentKeyId], state: 'running' });
		const job = await settledGrantJob(admin, uploaded.body.grantJob.jobId);
		expect(job).toMatchObject({ state: 'done', failed: 0 });
		// The agent's page is told to reload its lists; progress itself is for admins only.
		await agentStream.waitFor((event) => event.event === 'resync');
		expect(agentStream.received.filter((event) => event.event === 'grant.progress')).toEqual([]);
		agentStream.close();
		expect(job.done).toBeGreaterThanOrEqual(1);

		// The earlier conversation now carries a wrap for the agent that opens to the same K as the company's.
		const view = await first.client.get(`/api/conversations/${earlier.conversationId}`);
		const [granted] = view.body.agentWraps;
		expect(granted).toMatchObject({ agentKeyId: first.agentKeyId, rosterVersion: version });
		const companyPair = {
			secretKey: b64uDecode((await readFile(join(harness.stack().dataDir, 'keys', 'private.key'), 'utf8')).trim()),
			publicKey: b64uDecode((await readFile(join(harness.stack().dataDir, 'keys', 'public.key'), 'utf8')).trim())
		};
		const atService = await callService(harness.stack(), 'GET', `/v1/conversations/${earlier.conversationId}`);
		const k = openConversationKey(atService.body.wrapForCompany, earlier.conversationId, [companyPair]);
		expect(openConversationKey(granted.wrap, earlier.conversationId, [first.keyPair])).toEqual(k);

		// A second agent joins; the first is removed from the roster: only the second is granted, and a new
		// conversation is sealed by the customer's app for the roster's agents only.
		const second = await newAgent(admin, 'later');
		const next = await admin.post('/api/admin/roster', signedRoster(companyId(), version + 1, [second.rosterEntry], signingKey));
		expect(next.status).toBe(201);
		expect(next.body.grantJob.agentKeyIds).toEqual([second.agentKeyId]);
		await settledGrantJob(admin, next.body.grantJob.jobId);
		const fresh = await Customer.redeem(harness.stack().simUrl, { link: (await admin.post('/api/invites', {})).body.link });
		await expect
			.poll(async () => (await second.client.get(`/api/conversations/${fresh.conversationId}`)).body.agentWraps?.length, {
				timeout: 20_000
			})
			.toBe(1);
		const wrapsAtService = await callService(harness.stack(), 'GET', `/v1/conversations/${fresh.conversationId}/agent-wraps`);
		expect(wrapsAtService.body.wraps.map((wrap: { agentKeyId: string }) => wrap.agentKeyId)).toEqual([second.agentKeyId]);
		expect((await first.client.get(`/api/conversations/${fresh.conversationId}`)).body.agentWraps).toEqual([]);

		const history = (await admin.get('/api/admin/roster')).body;
		expect(history.latest.rosterVersion).toBe(version + 1);
		expect(history.history.map((roster: { rosterVersion: number }) => roster.rosterVersion).slice(0, 2)).toEqual([version + 1, version]);
		const jobs = (await admin.get('/api/admin/grant-jobs')).body.data;
		expect(jobs.map((listed: { jobId: string }) => listed.jobId)).toEqual(
			expect.arrayContaining([uploaded.body.grantJob.jobId, next.body.grantJob.jobId])
		);
	});

	it('takes a roster uploaded to the service by another tool (the demo launcher) into the history, grants its agents, and signs on after it', async () => {
		const admin = await harness.login(ADMIN);
		const agent = await newAgent(admin, 'demo');
		const before = (await admin.get('/api/admin/roster')).body.next.rosterVersion;
		const published = await publishRoster(harness.stack().company, join(harness.stack().dataDir, 'keys', 'signing.key'), [
			agent.rosterEntry
		]);
		expect(published.rosterVersion).toBe(before);
		const overview = (await admin.get('/api/admin/roster')).body;
		expect(overview.latest).toMatchObject({
			rosterVersion: before,
			uploadedBy: null,
			uploadedByName: null,
			agents: [{ agentKeyId: agent.agentKeyId, accountId: agent.accountId }]
		});
		expect(overview.history[0].rosterVersion).toBe(before);
		expect(overview.next.rosterVersion).toBe(before + 1);
		expect(
			(await admin.get('/api/admin/agents')).body.data.find((entry: { accountId: string }) => entry.accountId === agent.accountId).inRoster
		).toBe(true);
		const [imported] = (await admin.get('/api/admin/grant-jobs')).body.data;
		expect(imported).toMatchObject({ rosterVersion: before, agentKeyIds: [agent.agentKeyId] });
		expect(await settledGrantJob(admin, imported.jobId)).toMatchObject({ state: 'done', failed: 0 });
		const signingKey = await signingKeyOf(harness.stack());
		expect((await admin.post('/api/admin/roster', signedRoster(companyId(), before + 1, [agent.rosterEntry], signingKey))).status).toBe(
			201
		);
	});

	it('refuses stale versions, other signers, more than 1000 agents, repeats and unknown fields, storing nothing', async () => {
		const admin = await harness.login(ADMIN);
		const signingKey = await signingKeyOf(harness.stack());
		const agent = await newAgent(admin);
		const before = (await admin.get('/api/admin/roster')).body;
		const version = before.next.rosterVersion;
		const serviceBefore = await callService(harness.stack(), 'GET', '/v1/roster');
		// Rosters the crypto core would not even sign: their checks come before the signature's.
		const unsignable = (agents: unknown[]) => ({
			rosterVersion: version,
			issuedAt: '2026-11-22T10:00:00Z',
			agents,
			signature: b64uEncode(new Uint8Array(64))
		});
		const key = () => ({
			agentKeyId: `agk_${b64uEncode(generateX25519KeyPair().publicKey).slice(0, 20)}`,
			publicKey: b64uEncode(generateX25519KeyPair().publicKey)
		});

		const refusals: [unknown, number, string][] = [
			[
				signedRoster(companyId(), version - 1 < 1 ? version + 1 : version - 1, [agent.rosterEntry], signingKey),
				409,
				'ROSTER_VERSION_CONFLICT'
			],
			[signedRoster(companyId(), version + 1, [agent.rosterEntry], signingKey), 409, 'ROSTER_VERSION_CONFLICT'],
			[signedRoster(companyId(), version, [agent.rosterEntry], generateEd25519KeyPair().secretKey), 400, 'SIGNATURE_INVALID'],
			[signedRoster('cmp_otherCompany1', version, [agent.rosterEntry], signingKey), 400, 'SIGNATURE_INVALID'],
			[unsignable(Array.from({ length: 1001 }, key)), 400, 'INVALID_INPUT'],
			[unsignable([agent.rosterEntry, agent.rosterEntry]), 400, 'INVALID_INPUT'],
			[unsignable([agent.rosterEntry, { ...key(), publicKey: agent.rosterEntry.publicKey }]), 400, 'INVALID_INPUT'],
			[unsignable([{ agentKeyId: 'agent-1', publicKey: agent.rosterEntry.publicKey }]), 400, 'INVALID_INPUT'],
			[{ ...signedRoster(companyId(), version, [agent.rosterEntry], signingKey), companyId: companyId() }, 400, 'INVALID_REQUEST'],
			[
				{ ...signedRoster(companyId(), version, [], signingKey), agents: [{ ...agent.rosterEntry, displayName: 'x' }] },
				400,
				'INVALID_REQUEST'
			],
			[
				{ ...signedRoster(companyId(), version, [agent.rosterEntry], signingKey), issuedAt: '2026-11-22T10:00:00.000Z' },
				400,
				'INVALID_INPUT'
			]
		];
		for (const [body, status, code] of refusals) {
			const refused = await admin.post('/api/admin/roster', body);
			expect([refused.status, refused.body.error?.code], JSON.stringify(body).slice(0, 200)).toEqual([status, code]);
		}
		const after = (await admin.get('/api/admin/roster')).body;
		expect(after.history).toEqual(before.history);
		expect((await callService(harness.stack(), 'GET', '/v1/roster')).body).toEqual(serviceBefore.body);

		// The proxy no longer forwards rosters or agent wraps: the server is the only path, and it verifies.
		const proxied = await admin.post(
			'/api/v1/roster',
			signedRoster(companyId(), version, [agent.rosterEntry], generateEd25519KeyPair().secretKey)
		);
		expect([proxied.status, proxied.body.error.code]).toEqual([403, 'ROUTE_NOT_ALLOWED']);
		const wraps = await admin.post('/api/v1/conversations/conv_x/agent-wraps', { rosterVersion: version, wraps: [] });
		expect([wraps.status, wraps.body.error.code]).toEqual([403, 'ROUTE_NOT_ALLOWED']);
		const agentTries = await agent.client.post('/api/admin/roster', signedRoster(companyId(), version, [agent.rosterEntry], signingKey));
		expect([agentTries.status, agentTries.body.error.code]).toEqual([403, 'FORBIDDEN']);
	});

	it('refuses the signing secret in any body, spelt any way, on any route, before anything is stored or forwarded', async () => {
		const admin = await harness.login(ADMIN);
		const agent = await newAgent(admin, 'guard');
		const secret = await signingKeyOf(harness.stack());
		const spellings = signingSecretSpellings(secret);
		const accountsBefore = (await admin.get('/api/admin/accounts')).body.data.length;
		const anonymous = new InboxClient(harness.stack().inbox.url);
		for (const spelling of spellings) {
			const attempts = [
				admin.post('/api/admin/accounts', { username: 'leaky', displayName: spelling, role: 'agent', password: 'long enough password' }),
				admin.post('/api/admin/roster', { ...signedRoster(companyId(), 1, [], secret), signingKey: spelling }),
				admin.post('/api/admin/agent-invitations', { displayName: spelling, role: 'agent', validForHours: 1 }),
				agent.client.request('PUT', '/api/agent-key', { agentKeyId: agent.agentKeyId, publicKey: spelling, replace: true }),
				agent.client.post('/api/v1/messages', { conversationId: 'conv_x', contentType: 'text', encryption: { note: spelling } }),
				agent.client.post('/api/invites', { [spelling]: true }),
				anonymous.post('/api/session', { username: 'admin', password: spelling }),
				anonymous.post('/api/join', { token: 'x'.repeat(43), username: 'leaky', password: spelling }),
				admin.post('/api/admin/company-key/rotation/confirm', { toKeyVersion: 2, rotationSignature: spelling })
			];
			for (const refused of await Promise.all(attempts)) {
				expect([refused.status, refused.body.error?.code], spelling).toEqual([400, 'SECRET_REFUSED']);
			}
		}
		// Outside a JSON body: byte arrays, the query string, a header, a form body.
		const elsewhere = [
			agent.client.post('/api/invites', { key: Array.from(secret) }),
			agent.client.get(`/api/conversations?note=${encodeURIComponent(b64uEncode(secret))}`),
			agent.client.get('/api/conversations', { 'x-note': b64uEncode(secret.subarray(0, 32)) }),
			fetch(`${harness.stack().inbox.url}/api/session`, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded', origin: harness.stack().inbox.url },
				body: new URLSearchParams({ username: 'admin', password: Buffer.from(secret).toString('base64') }).toString()
			}).then(async (response) => ({ status: response.status, body: await response.json() }))
		];
		for (const refused of await Promise.all(elsewhere)) expect([refused.status, refused.body.error?.code]).toEqual([400, 'SECRET_REFUSED']);
		// Without a session a large body is refused by its size before anything is derived from it.
		const flood = await anonymous.post('/api/invites', { pad: 'x'.repeat(180_000), key: b64uEncode(secret) });
		expect([flood.status, flood.body.error?.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
		expect((await admin.get('/api/admin/accounts')).body.data.length).toBe(accountsBefore);
		expect((await agent.client.get('/api/session')).body.account.agentPublicKey).toBe(agent.rosterEntry.publicKey);

		// Nothing the inbox keeps (its database files and everything else outside keys/) holds the secret.
		if (backend === 'PGlite') {
			const files: string[] = [];
			const walk = async (dir: string) => {
				for (const name of await readdir(dir)) {
					const path = join(dir, name);
					if ((await stat(path)).isDirectory()) await walk(path);
					else files.push(path);
				}
			};
			for (const name of await readdir(harness.stack().dataDir)) {
				if (name === 'keys') continue;
				const path = join(harness.stack().dataDir, name);
				if ((await stat(path)).isDirectory()) await walk(path);
				else files.push(path);
			}
			for (const file of files) expect(leaks((await readFile(file)).toString('latin1'), secret), file).toEqual([]);
		}
		// The public half is public, and passes.
		const pub = (await admin.get('/api/admin/signing-key')).body.publicKey;
		expect((await admin.post('/api/admin/agent-invitations', { displayName: pub, role: 'agent', validForHours: 1 })).status).toBe(201);
	});
});
