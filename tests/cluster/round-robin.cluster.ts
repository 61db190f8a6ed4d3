/**
 * The round-robin with two processes (docs/inbox-api.md §4 "Round-robin", docs/operations.md "Behind a
 * load balancer"): three agents in the roster, each with a tab's event stream open through HAProxy, are
 * online on both processes (the database holds it). Thirty customers wait; the policy is switched on and
 * both processes are told at the same moment (an agent says they are back on each), so both give turns
 * at once. Each conversation is given once, to one agent, its activity naming the rule; the turns come
 * out even, ten each; the processes' logs account for all thirty between them.
 */
import { expect, it, vi } from 'vitest';
import { newAgent, signedRoster } from '$test-support/admin-api';
import { InboxClient } from '$test-support/inbox-client';
import { parseLog } from '$test-support/server-log';
import type { ConversationView } from '../../src/lib/inbox-api/records';
import { useCluster, type Cluster, type ClusterMember } from './cluster';
import { newCustomers } from './customer-load';
import { signingKeyOf } from './grant-jobs';

vi.setConfig({ testTimeout: 120_000 });

let cluster: Cluster;
useCluster((started) => (cluster = started));

/** How many conversations `member` says it gave, summed over its log's round-robin lines. */
function givenBy(member: ClusterMember): number {
	return parseLog(member.output.join('\n'))
		.filter((line) => line.msg === 'the round-robin assigned conversations')
		.reduce((sum, line) => sum + Number(line.assigned), 0);
}

it('gives thirty waiting conversations to three online agents in turn from both processes: ten each, each once', async () => {
	const admin = await cluster.admin();
	const agents = await Promise.all(['ann', 'bob', 'cyd'].map((label) => newAgent(admin, label)));
	const { next } = (await admin.get('/api/admin/roster')).body;
	const roster = signedRoster(
		cluster.company.companyId,
		next.rosterVersion,
		agents.map((agent) => agent.rosterEntry),
		await signingKeyOf(cluster.members[0])
	);
	expect((await admin.post('/api/admin/roster', roster)).status).toBe(201);
	const streams = await Promise.all(agents.map((agent) => agent.client.events()));
	try {
		await Promise.all(streams.map((stream) => stream.waitFor((event) => event.event === 'ready')));
		const online = async () =>
			(await admin.get('/api/team')).body.data.filter(
				(member: { accountId: string; availability: string }) =>
					agents.some((agent) => agent.accountId === member.accountId) && member.availability === 'online'
			).length;
		await expect.poll(online, { timeout: 30_000 }).toBe(3);

		// thirty customers write while the policy is off: nothing is given yet
		const customers = await newCustomers(cluster, 30);
		const ids = customers.map((customer) => customer.conversationId);
		await Promise.all(customers.map((customer) => customer.say('Where is my parcel?')));
		const views = async (): Promise<ConversationView[]> =>
			Promise.all(ids.map(async (id) => (await admin.get(`/api/conversations/${id}`)).body as ConversationView));
		// each conversation's message is processed (the team has it unread) and nobody was given one
		await expect.poll(async () => (await views()).filter((view) => view.unreadCount > 0).length, { timeout: 60_000 }).toBe(30);
		expect((await views()).filter((view) => view.assignee)).toEqual([]);

		const switched = await admin.request('PATCH', '/api/admin/settings', { roundRobin: true });
		expect(switched.status).toBe(200);
		// the same moment on both processes: one agent says they are back on each, which runs its round-robin
		await Promise.all(
			cluster.members.map(async (member, index) => {
				const direct = new InboxClient(member.url, admin.url);
				direct.cookie = agents[index].client.cookie;
				expect((await direct.put('/api/team/availability', { away: false })).status).toBe(200);
			})
		);
		await expect.poll(async () => (await views()).filter((view) => view.assignee).length, { timeout: 60_000 }).toBe(30);

		const given = await views();
		const shares = agents.map((agent) => given.filter((view) => view.assignee?.accountId === agent.accountId).length);
		expect(shares).toEqual([10, 10, 10]);
		for (const view of given) {
			const assigned = view.activity.filter((line) => line.kind === 'assigned');
			expect(assigned).toHaveLength(1);
			expect(assigned[0]).toMatchObject({ actorName: null, details: { automatic: true, rule: 'round_robin' } });
		}
		// each process logs its run once it committed: the last lines reach this process through its pipe a moment later
		await expect.poll(() => cluster.members.map(givenBy).reduce((sum, given) => sum + given, 0), { timeout: 10_000 }).toBe(30);
		const [first, second] = cluster.members.map(givenBy);
		console.log(
			`cluster: round-robin over two processes: 30 conversations given as ${shares.join('/')}; ` +
				`${cluster.members[0].name} gave ${first}, ${cluster.members[1].name} gave ${second}`
		);
	} finally {
		for (const stream of streams) stream.close();
	}
});
