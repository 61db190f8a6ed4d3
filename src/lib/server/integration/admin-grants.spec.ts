import { describe, expect, it, vi } from 'vitest';
import { newAgent, settledGrantJob, signedRoster, signingKeyOf } from '../../../../tests/support/admin-api';
import { simControl } from '../../../../tests/support/customer';
import { BACKENDS } from '../../../../tests/support/databases';
import { InboxClient } from '../../../../tests/support/inbox-client';
import { ADMIN, useStack } from '../../../../tests/support/integration';

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
});
