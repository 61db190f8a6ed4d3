/**
 * The list's counts over HTTP (docs/inbox-api.md §4 "Counts"): each account counts the conversations as the
 * list shows them to it (unread messages and labels only where it may read them); the counts follow
 * reading, assigning and labelling, take the list's filters, refuse a filter the list does not know, and
 * count the service-target views as the page does from the list's rows (db/conversation-counts.spec.ts in depth).
 */
import { describe, expect, it, vi } from 'vitest';
import { countServiceViews, dueByConversation } from '../../client/service-due';
import { targetPolicy } from '../../service-targets/targets';
import { addToRoster, newAgent } from '$test-support/admin-api';
import { Customer } from '$test-support/customer';
import { BACKENDS } from '$test-support/databases';
import type { InboxClient } from '$test-support/inbox-client';
import { ADMIN, useStack } from '$test-support/integration';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 180_000 });

const counts = async (client: InboxClient, query = '') => (await client.get(`/api/conversations/counts${query}`)).body;

const nothing = {
	total: { all: 0, active: 0, awaiting_key: 0, pending: 0, closed: 0 },
	unread: { all: 0, active: 0, awaiting_key: 0, pending: 0, closed: 0 },
	lifecycle: { open: 0, snoozed: 0, resolved: 0 },
	assignment: { mine: 0, unassigned: 0, all: 0, byAgent: {} },
	labels: {},
	teams: {},
	service: { breaching: 0, overdue: 0 }
};

describe.each(BACKENDS)('the list’s counts on %s', (backend) => {
	const harness = useStack(backend);

	it('counts as the list shows each account, follows reading, assignment, labels and teams, refuses unknown filters, and counts deadlines as the page does', async () => {
		const stack = harness.stack();
		const admin = await harness.login(ADMIN);
		const reader = await newAgent(admin, 'reader');
		const newHire = await newAgent(admin, 'hire');
		await addToRoster(stack, admin, [reader.rosterEntry]);
		const invited = await admin.post('/api/invites', {});
		const { conversationId } = await Customer.redeem(stack.simUrl, { link: invited.body.link }).then(async (customer) => {
			await customer.say('Where is my parcel?');
			return customer;
		});
		await expect
			.poll(async () => (await admin.get(`/api/conversations/${conversationId}/messages`)).body.data?.length, { timeout: 30_000 })
			.toBe(1);
		// a key, but not in the roster: the list shows the conversation as unreadable, and so do the counts
		const outsider = await harness.loginOutsider();
		const listed = async (client: InboxClient) => (await client.get('/api/conversations')).body.data;
		expect(await listed(outsider)).toMatchObject([{ conversationId, readable: false, unreadCount: 0, labels: [] }]);

		const one = { all: 1, active: 1, awaiting_key: 0, pending: 0, closed: 0 };
		const unassigned = { ...nothing, total: one, unread: one, lifecycle: { open: 1, snoozed: 0, resolved: 0 } };
		const open = { mine: 0, unassigned: 1, all: 1, byAgent: {} };
		expect(await counts(admin)).toEqual({ ...unassigned, assignment: open });
		expect(await counts(reader.client)).toEqual({ ...unassigned, assignment: open });
		expect((await newHire.client.get(`/api/conversations/${conversationId}`)).body).toMatchObject({ readable: false });
		// shown, neither unread nor labelled, to those who may not read it
		const unreadable = { ...unassigned, unread: nothing.unread, assignment: open };
		expect(await counts(newHire.client)).toEqual(unreadable);
		expect(await counts(outsider)).toEqual(unreadable);

		const [message] = (await reader.client.get(`/api/conversations/${conversationId}/messages`)).body.data;
		expect((await reader.client.post(`/api/v1/conversations/${conversationId}/read`, { upToMessageId: message.messageId })).status).toBe(
			200
		);
		expect((await admin.put(`/api/conversations/${conversationId}/assignee`, { accountId: reader.accountId })).status).toBe(200);
		const label = (await admin.post('/api/admin/labels', { name: 'Parcels', color: 'gray' })).body;
		expect((await admin.put(`/api/conversations/${conversationId}/labels`, { labelIds: [label.labelId] })).status).toBe(200);
		const team = (await admin.post('/api/admin/teams', { name: 'Parcels', memberIds: [] })).body;
		expect((await admin.put(`/api/conversations/${conversationId}/team`, { teamId: team.teamId })).status).toBe(200);
		const assigned = { mine: 0, unassigned: 0, all: 1, byAgent: { [reader.accountId]: 1 } };
		const grouped = { labels: { [label.labelId]: 1 }, teams: { [team.teamId]: 1 } };
		expect(await counts(reader.client)).toEqual({
			...unassigned,
			unread: nothing.unread,
			assignment: { ...assigned, mine: 1 },
			...grouped
		});
		expect(await counts(admin)).toEqual({ ...unassigned, assignment: assigned, ...grouped });
		expect(await counts(newHire.client)).toEqual({ ...unreadable, assignment: assigned, teams: grouped.teams });
		expect(await listed(newHire.client)).toMatchObject([{ conversationId, readable: false, labels: [], team: { teamId: team.teamId } }]);

		expect((await counts(admin, '?status=closed&trust=verified')).total).toEqual(nothing.total);
		expect((await counts(admin, '?status=active&trust=verified')).total).toEqual(one);
		for (const query of ['?status=open', '?trust=trusted']) {
			const refused = await admin.get(`/api/conversations/counts${query}`);
			expect([refused.status, refused.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
		}

		// two hours to answer, half an hour with the label: due within the hour only where the label shows
		const serviceTargets = {
			firstResponseMinutes: 120,
			resolutionMinutes: null,
			businessHoursOnly: false,
			byLabel: { [label.labelId]: { firstResponseMinutes: 30 } }
		};
		expect((await admin.patch('/api/admin/settings', { serviceTargets })).status).toBe(200);
		const policy = targetPolicy(serviceTargets, null);
		const asThePageCounts = async (client: InboxClient) => countServiceViews(dueByConversation(await listed(client), policy), Date.now());
		for (const [client, breaching] of [
			[admin, 1],
			[reader.client, 1],
			[newHire.client, 0]
		] as const) {
			const { service } = await counts(client);
			expect(service).toEqual({ breaching, overdue: 0 });
			expect(service).toEqual(await asThePageCounts(client));
		}
	});
});
