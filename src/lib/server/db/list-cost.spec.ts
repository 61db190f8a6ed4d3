/**
 * The cost of a page of the list (docs/inbox-api.md §4 "Cost of a page"): on both stores the planner
 * counts a row's unread messages from the partial index of the customer's messages, from the account's
 * read mark on, never by reading the conversation's whole history; and the counts are right.
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import type { Account } from './accounts';
import { LIST_VIEWS_SQL, listConversationViews } from './conversations';

const CONVERSATIONS = 60;
const MESSAGES_EACH = 300;

const admin: Account = {
	accountId: 'acc_admin',
	username: 'admin',
	displayName: 'Admin',
	role: 'admin',
	agentKeyId: null,
	agentPublicKey: null,
	createdAt: new Date('2026-11-01T00:00:00Z'),
	disabledAt: null,
	roleSince: new Date('2026-11-01T00:00:00Z'),
	roleGrantedBy: null
};

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };

function nodes(plan: PlanNode): PlanNode[] {
	return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe.each(BACKENDS)('a list page on %s', (backend) => {
	const databases = useDatabases(backend);

	it('counts unread messages from the index of the customer’s messages, not from the whole history', async () => {
		const db = await databases.open();
		await db.query(
			`insert into accounts (account_id, username, display_name, role, password_hash, created_at, role_since)
			 values ('acc_admin', 'admin', 'Admin', 'admin', 'x', now(), now())`
		);
		await db.query(
			`insert into conversations (conversation_id, status, created_at, last_activity_at, updated_at)
			 select 'conv_' || n, 'active', now(), now() - n * interval '1 minute', now() from generate_series(1, $1::int) n`,
			[CONVERSATIONS]
		);
		await db.query(
			`insert into conversation_messages (message_id, conversation_id, seq, sender_type, content_type, encryption, created_at)
			 select 'msg_' || c || '_' || s, 'conv_' || c, s, case when s % 3 = 0 then 'company' else 'user' end, 'text', '{}'::jsonb, now()
			 from generate_series(1, $1::int) c, generate_series(1, $2::int) s`,
			[CONVERSATIONS, MESSAGES_EACH]
		);
		await db.query(
			`insert into agent_reads (account_id, conversation_id, read_up_to_seq, updated_at) values ('acc_admin', 'conv_1', 270, now())`
		);
		await db.query('analyze');

		const parameters = [admin.accountId, null, null, null, null, null, null, 51];
		const [{ 'QUERY PLAN': plan }] = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(
			`explain (format json) ${LIST_VIEWS_SQL}`,
			parameters
		);
		const all = nodes((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan);
		const onMessages = all.filter((node) => node['Relation Name'] === 'conversation_messages');
		expect(onMessages.map((node) => node['Node Type'])).not.toContain('Seq Scan');
		// an index scan, or a bitmap scan whose index node names it
		expect(all.map((node) => node['Index Name'])).toContain('conversation_messages_unread');

		const { views } = await listConversationViews(db, admin, { limit: 50 });
		const unread = new Map(views.map((view) => [view.conversationId, view.unreadCount]));
		// 200 of each 300 messages are the customer's; conv_1 is read up to seq 270, after which 20 are theirs
		expect([unread.get('conv_1'), unread.get('conv_2'), views.length]).toEqual([20, 200, 50]);
	});
});
