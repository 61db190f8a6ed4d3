/**
 * Grant jobs in the cluster (docs/operations.md "Several processes", "Behind a load balancer"): a job
 * started on a chosen process, and how many agent-wrap uploads the service carried out for each
 * conversation since a moment, so that a test can tell a conversation uploaded once from one uploaded
 * twice or never.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { newAgent, signedRoster } from '../support/admin-api';
import { simControl } from '../support/customer';
import { initCrypto, parseKeyFile } from '../../src/lib/crypto/index';
import type { Cluster, ClusterMember } from './cluster';

/** The service's count of agent-wrap uploads, by conversation. */
export async function wrapUploads(cluster: Cluster): Promise<Map<string, number>> {
	const { body } = await simControl(cluster.sim.url).control('GET', `/_sim/companies/${cluster.company.companyId}/agent-wrap-uploads`);
	return new Map((body.data as { conversationId: string; uploads: number }[]).map((entry) => [entry.conversationId, entry.uploads]));
}

/** How many conversations got exactly one upload since `before`, and how many got more. */
export async function uploadsSince(cluster: Cluster, before: Map<string, number>): Promise<{ once: number; more: number }> {
	const deltas = [...(await wrapUploads(cluster)).entries()].map(([id, uploads]) => uploads - (before.get(id) ?? 0));
	return { once: deltas.filter((delta) => delta === 1).length, more: deltas.filter((delta) => delta > 1).length };
}

export async function signingKeyOf(member: ClusterMember): Promise<Uint8Array> {
	await initCrypto();
	return parseKeyFile(await readFile(join(member.dataDir, 'keys', 'signing.key'), 'utf8'), 64, 'signing.key');
}

/**
 * Seeds `count` more conversations (the job grants every conversation of the company) and uploads a roster adding a new agent to `owner` while `other` is
 * paused, so that `owner` takes the grant job that follows; resolves once it granted some conversations
 * (`other` is back in HAProxy then).
 */
export async function grantJobOwnedBy(
	cluster: Cluster,
	owner: ClusterMember,
	other: ClusterMember,
	count: number,
	{ pauseOwnerOnceStarted = false }: { pauseOwnerOnceStarted?: boolean } = {}
) {
	const admin = await cluster.admin();
	const { companyId } = cluster.company;
	if (count > 0) {
		const seeded = await simControl(cluster.sim.url).control('POST', `/_sim/companies/${companyId}/conversations`, { count });
		if (seeded.status !== 201) throw new Error(`the simulator did not seed conversations: ${JSON.stringify(seeded.body)}`);
	}
	const agent = await newAgent(admin, 'cluster');
	const { next } = (await admin.get('/api/admin/roster')).body;
	const roster = signedRoster(companyId, next.rosterVersion, [agent.rosterEntry], await signingKeyOf(owner));
	const onOwner = await cluster.adminOn(owner);
	const uploadsBefore = await wrapUploads(cluster);
	// `other` is paused only so that it cannot take the job: out of HAProxy meanwhile, so that its pause
	// is no failure to detect (and not still DOWN there when the owner is paused in turn)
	await cluster.haproxy.setServerState(other.name, 'maint');
	other.inbox.process.child.kill('SIGSTOP');
	try {
		const uploaded = await onOwner.post('/api/admin/roster', roster);
		if (uploaded.status !== 201) throw new Error(`the roster was not accepted: ${uploaded.status} ${JSON.stringify(uploaded.body)}`);
		const jobId: string = uploaded.body.grantJob.jobId;
		const deadline = Date.now() + 30_000;
		while (Date.now() < deadline) {
			if ((await onOwner.get(`/api/admin/grant-jobs/${jobId}`)).body.done > 0) {
				// paused at once, mid-job: a fast machine would otherwise finish it before the caller could
				if (pauseOwnerOnceStarted) owner.inbox.process.child.kill('SIGSTOP');
				return { jobId, uploadsBefore };
			}
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		throw new Error(`grant job ${jobId} granted nothing in 30 s`);
	} finally {
		other.inbox.process.child.kill('SIGCONT');
		await cluster.haproxy.setServerState(other.name, 'ready');
	}
}
