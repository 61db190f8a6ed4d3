import { afterAll, describe, expect, it, vi } from 'vitest';
import { grantJobUnderWay, newAgent, settledGrantJob, signedRoster, signingKeyOf, wrapUploadsOf } from '$test-support/admin-api';
import { simControl } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';
import { freePort } from '../../../cli/stack/ports';
import { startInbox, type RunningInbox } from '../../../cli/stack/stack';
import { b64uDecode, b64uEncode, generateX25519KeyPair, signRotation } from '../../crypto/index';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 300_000 });

const CONVERSATIONS = 2_000;

describe.each(BACKENDS)('grant jobs survive a crash on %s (contract 6.7; docs/inbox-api.md "Administration")', (backend) => {
	const harness = useStack(backend);

	it('a grant killed mid-way continues in the next server process and uploads each conversation exactly once', async () => {
		const stack = harness.stack();
		const sim = simControl(stack.simUrl);
		const { companyId } = stack.company;
		const seeded = await sim.control('POST', `/_sim/companies/${companyId}/conversations`, { count: CONVERSATIONS });
		expect(seeded.status).toBe(201);
		let admin = await harness.login(ADMIN);
		const agent = await newAgent(admin, 'granted');
		const signingKey = await signingKeyOf(stack);
		const { next } = (await admin.get('/api/admin/roster')).body;
		const uploaded = await admin.post('/api/admin/roster', signedRoster(companyId, next.rosterVersion, [agent.rosterEntry], signingKey));
		expect(uploaded.status).toBe(201);
		const { jobId } = uploaded.body.grantJob;

		// Progress over SSE and in the database; the process dies (SIGKILL) once some conversations are done.
		const events = await admin.events();
		const progress = await events.waitFor(
			(event) => event.event === 'grant.progress' && event.data.jobId === jobId && event.data.done > 0,
			60_000
		);
		expect(progress.data).toMatchObject({ state: 'running', rosterVersion: next.rosterVersion, agentKeyIds: [agent.agentKeyId] });
		await stack.restartInbox({ kill: true });
		events.close();
		const atCrash = (await sim.control('GET', `/_sim/companies/${companyId}/agent-wrap-uploads`)).body.data.length;
		expect(atCrash).toBeLessThan(CONVERSATIONS);

		admin = await InboxClient.loggedIn(stack.inbox.url, ADMIN.username, ADMIN.password);
		const job = await settledGrantJob(admin, jobId);
		expect(job).toMatchObject({ state: 'done', total: CONVERSATIONS, done: CONVERSATIONS, failed: 0 });

		const uploads = (await sim.control('GET', `/_sim/companies/${companyId}/agent-wrap-uploads`)).body.data as {
			conversationId: string;
			uploads: number;
			agentKeyIds: string[];
		}[];
		const seededIds = new Set(seeded.body.conversationIds);
		const ofSeeded = uploads.filter((entry) => seededIds.has(entry.conversationId));
		expect(ofSeeded.length).toBe(CONVERSATIONS);
		expect(ofSeeded.filter((entry) => entry.uploads !== 1)).toEqual([]);
		expect(ofSeeded.every((entry) => entry.agentKeyIds.length === 1 && entry.agentKeyIds[0] === agent.agentKeyId)).toBe(true);
	});

	it('a newer roster takes over the agents of an unfinished grant; only a failed job of the latest roster resumes', async () => {
		const stack = harness.stack();
		const { companyId } = stack.company;
		await simControl(stack.simUrl).control('POST', `/_sim/companies/${companyId}/conversations`, { count: 1_000 });
		const admin = await harness.login(ADMIN);
		const signingKey = await signingKeyOf(stack);
		const [first, second] = [await newAgent(admin, 'first'), await newAgent(admin, 'second')];
		const version = (await admin.get('/api/admin/roster')).body.next.rosterVersion;
		const older = (await admin.post('/api/admin/roster', signedRoster(companyId, version, [first.rosterEntry], signingKey))).body.grantJob;
		const newer = await admin.post(
			'/api/admin/roster',
			signedRoster(companyId, version + 1, [first.rosterEntry, second.rosterEntry], signingKey)
		);
		expect(newer.body.grantJob.agentKeyIds.sort()).toEqual([first.agentKeyId, second.agentKeyId].sort());
		expect((await admin.get(`/api/admin/grant-jobs/${older.jobId}`)).body).toMatchObject({
			state: 'failed',
			lastError: `superseded by roster ${version + 1}`
		});
		expect(await settledGrantJob(admin, newer.body.grantJob.jobId)).toMatchObject({ state: 'done', failed: 0 });

		const stale = await admin.post(`/api/admin/grant-jobs/${older.jobId}/resume`, {});
		expect([stale.status, stale.body.error.code]).toEqual([409, 'ROSTER_VERSION_CONFLICT']);
		const finished = await admin.post(`/api/admin/grant-jobs/${newer.body.grantJob.jobId}/resume`, {});
		expect([finished.status, finished.body.error.code]).toEqual([409, 'STATE_CONFLICT']);
		expect((await admin.get('/api/admin/grant-jobs/grj_unknown')).status).toBe(404);
	});

	it('conversations whose key the inbox cannot open fail the job; resuming tries them again', async () => {
		const stack = harness.stack();
		const { companyId } = stack.company;
		const sim = simControl(stack.simUrl);
		// The portal gets a company key the inbox never had (a rotation done elsewhere): what is sealed for it cannot be opened here.
		const company = (await sim.control('GET', `/_sim/companies/${companyId}`)).body;
		const foreign = generateX25519KeyPair();
		const signingKey = await signingKeyOf(stack);
		const rotation = {
			companyId,
			fromKeyVersion: company.keyVersion,
			fromPublicKey: b64uDecode(company.publicKey),
			toKeyVersion: company.keyVersion + 1,
			toPublicKey: foreign.publicKey
		};
		const rotated = await sim.control('POST', `/_sim/companies/${companyId}/keys/rotate`, {
			publicKey: b64uEncode(foreign.publicKey),
			keyVersion: rotation.toKeyVersion,
			rotationSignature: signRotation(rotation, signingKey)
		});
		expect(rotated.status).toBe(200);
		const unreadable = (await sim.control('POST', `/_sim/companies/${companyId}/conversations`, { count: 3 })).body.conversationIds;

		const admin = await harness.login(ADMIN);
		const agent = await newAgent(admin, 'partial');
		const version = (await admin.get('/api/admin/roster')).body.next.rosterVersion;
		const { grantJob } = (await admin.post('/api/admin/roster', signedRoster(companyId, version, [agent.rosterEntry], signingKey))).body;
		const failed = await settledGrantJob(admin, grantJob.jobId);
		expect(failed).toMatchObject({ state: 'failed', failed: 3, lastError: '3 conversations could not be granted' });
		expect(failed.done).toBe((failed.total as number) - 3);
		const uploads = (await sim.control('GET', `/_sim/companies/${companyId}/agent-wrap-uploads`)).body.data as { conversationId: string }[];
		expect(uploads.filter((entry) => unreadable.includes(entry.conversationId))).toEqual([]);

		const resumed = await admin.post(`/api/admin/grant-jobs/${grantJob.jobId}/resume`, {});
		expect(resumed.status).toBe(200);
		expect(resumed.body).toMatchObject({ state: 'running', failed: 0 });
		expect(await settledGrantJob(admin, grantJob.jobId)).toMatchObject({ state: 'failed', failed: 3, done: failed.done });
	});
});

describe('grant jobs with several processes on one PostgreSQL (docs/operations.md "Several processes")', () => {
	const harness = useStack('PostgreSQL');
	let second: RunningInbox | undefined;
	afterAll(() => second?.stop());

	it('a job whose process is killed is taken over by another live process within 30 s, each conversation uploaded once', async () => {
		const stack = harness.stack();
		const { jobId, stream, seededIds } = await grantJobUnderWay(stack, await harness.login(ADMIN), 6_000, 'takeover');
		stream.close();

		// Another process joins while the first one works on the job: it must leave the job alone while the lease holds.
		second = await startInbox({ dataDir: stack.dataDir, databaseUrl: stack.databaseUrl, company: stack.company, port: await freePort() });
		const onSecond = await InboxClient.loggedIn(second.url, ADMIN.username, ADMIN.password);
		const jobOnSecond = async () => (await onSecond.get(`/api/admin/grant-jobs/${jobId}`)).body;
		expect(await jobOnSecond()).toMatchObject({ state: 'running' });

		await stack.inbox.kill();
		const killedAt = Date.now();
		const atKill = (await jobOnSecond()).done as number;
		expect(atKill).toBeLessThan(6_000);
		await expect.poll(async () => (await jobOnSecond()).done, { timeout: 30_000, interval: 250 }).toBeGreaterThan(atKill);
		expect(Date.now() - killedAt).toBeLessThan(30_000);

		expect(await settledGrantJob(onSecond, jobId)).toMatchObject({ state: 'done', done: 6_000, failed: 0 });
		expect(new Set(await wrapUploadsOf(stack, seededIds))).toEqual(new Set([1]));
	});
});
