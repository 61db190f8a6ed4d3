/**
 * The cost of a page of the list and of its counts (docs/inbox-api.md §4 "Cost of a page"): on both
 * stores a page reads the conversations in order from the index of their last activity, first page or
 * deep, and takes each row's unread count from the kept counts (migration 33), never reading a message;
 * the counts read no message either; the kept counts are right, also for a message stored late; and a
 * read mark and a run of webhook messages of the same conversation never wait on each other crosswise.
 */
import { describe, expect, it } from 'vitest';
import { accountRecord } from '$test-support/accounts';
import { BACKENDS, someoneWaitsForALock, useDatabases } from '$test-support/databases';
import type { Database } from './database';
import { LIST_VIEWS_SQL, listConversationViews } from './conversations';
import { COUNTS_SQL } from './conversation-counts';
import { markReadUpTo, storeMessage } from './messages';
import { appendLiveEvent } from './live-events';
import { newLease } from './leases';
import { claimDueEvents, storeWebhookEvents } from './webhook-events';
import { applyMessageBatch, messagesOf } from '../webhooks/message-batch';
import { deferred } from '$test-support/deferred';
import { incomingEvent } from '$test-support/webhooks';

const CONVERSATIONS = 2_000;
const MESSAGES_EACH = 30;

const admin = accountRecord({ accountId: 'acc_admin', username: 'admin', role: 'admin' });

type PlanNode = {
	'Node Type': string;
	'Relation Name'?: string;
	'Index Name'?: string;
	'Parent Relationship'?: string;
	Plans?: PlanNode[];
};

function nodes(plan: PlanNode): PlanNode[] {
	return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/** The nodes the page's rows flow through, without the subplans computed for each row. */
function rowPath(plan: PlanNode): PlanNode[] {
	const children = (plan.Plans ?? []).filter((child) => !['SubPlan', 'InitPlan'].includes(child['Parent Relationship'] ?? ''));
	return [plan, ...children.flatMap(rowPath)];
}

async function planOf(db: Database, sql: string, parameters: unknown[]): Promise<PlanNode> {
	const [{ 'QUERY PLAN': plan }] = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(
		`explain (format json) ${sql}`,
		parameters
	);
	return (typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan;
}

/** 2,000 conversations of 30 messages, two in three the customer's; the admin read conv_1 up to seq 27. */
async function seed(db: Database): Promise<void> {
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
	expect(await markReadUpTo(db, 'acc_admin', 'conv_1', 'msg_1_27', new Date())).toBe(true);
	await db.query('analyze');
}

describe.each(BACKENDS)('a list page on %s', (backend) => {
	const databases = useDatabases(backend);

	it('reads the conversations in order from the activity index and no message, first page or deep', async () => {
		const db = await databases.open();
		await seed(db);
		const cursor = [new Date(Date.now() - 30 * 60_000).toISOString(), 'conv_30'];
		for (const after of [[null, null], cursor]) {
			const plan = await planOf(db, LIST_VIEWS_SQL, [admin.accountId, null, null, null, null, ...after, 11]);
			expect(nodes(plan).filter((node) => node['Relation Name'] === 'conversation_messages')).toEqual([]);
			const scans = rowPath(plan).filter((node) => node['Relation Name'] === 'conversations');
			expect(scans.map((node) => [node['Node Type'], node['Index Name']])).toEqual([['Index Scan', 'conversations_by_activity']]);
			expect(rowPath(plan).map((node) => node['Node Type'])).not.toContain('Sort');
		}
	});

	it('counts the list’s views, the service-target views among them, without reading a message', async () => {
		const db = await databases.open();
		await seed(db);
		const plan = await planOf(db, COUNTS_SQL, [admin.accountId, null, null, 'admin', null, null, true]);
		expect(nodes(plan).filter((node) => node['Relation Name'] === 'conversation_messages')).toEqual([]);
		expect(nodes(plan).map((node) => node['Relation Name'])).toEqual(
			expect.arrayContaining(['conversation_customer_messages', 'conversation_response_facts'])
		);
	});

	it('keeps each row’s unread count as messages arrive, also one stored late below a read mark', async () => {
		const db = await databases.open();
		await seed(db);
		const unreadCounts = async () =>
			new Map((await listConversationViews(db, admin, { limit: 50 })).views.map((view) => [view.conversationId, view.unreadCount]));
		// 20 of each 30 messages are the customer's; conv_1 is read up to seq 27, after which 2 are theirs
		expect([(await unreadCounts()).get('conv_1'), (await unreadCounts()).get('conv_2'), (await unreadCounts()).size]).toEqual([2, 20, 50]);

		const message = (seq: number, senderType: 'user' | 'company') => ({
			messageId: `msg_late_${seq}`,
			conversationId: 'conv_1',
			seq,
			senderType,
			contentType: 'text',
			encryption: {} as never,
			attachment: null,
			createdAt: new Date().toISOString()
		});
		await storeMessage(db, message(31, 'user'), null);
		await storeMessage(db, message(32, 'company'), null);
		expect((await unreadCounts()).get('conv_1')).toBe(3);
		// stored late with seq 1, below the mark at 27: the mark covers it, so it is not unread
		await db.query('delete from conversation_messages where message_id = $1', ['msg_1_1']);
		await storeMessage(db, { ...message(1, 'user'), messageId: 'msg_late_1' }, null);
		await markReadUpTo(db, 'acc_admin', 'conv_1', 'msg_late_31', new Date());
		expect((await unreadCounts()).get('conv_1')).toBe(0);
		expect(await markReadUpTo(db, 'acc_admin', 'conv_1', 'msg_1_3', new Date())).toBe(true);
		expect((await unreadCounts()).get('conv_1')).toBe(0);
	});

	it.runIf(backend === 'PostgreSQL')(
		'a read mark and a run of webhook messages of the same conversation at once: neither waits on the other crosswise, both count',
		async () => {
			const db = await databases.open();
			await seed(db);
			const now = new Date();
			const events = [31, 32].map((seq) => ({
				id: `evt_run_${seq}`,
				type: 'message.created',
				createdAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
				data: {
					messageId: `msg_run_${seq}`,
					conversationId: 'conv_1',
					seq,
					senderType: 'user',
					contentType: 'text',
					encryption: { v: 1, scheme: 'sc1', keyVersion: 1, clientMessageId: `usr_run_${seq}`, nonce: 'n', ciphertext: 'c' },
					createdAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z')
				}
			}));
			await storeWebhookEvents(db, events.map(incomingEvent), now);
			const claimed = await claimDueEvents(db, 10, newLease(15_000), now);
			// the mark holds its conversation's count; the run starts meanwhile and must wait for it before the
			// live events' lock, or the mark's live event and the run's count would wait on each other
			const [marked, release] = [deferred<void>(), deferred<void>()];
			const mark = db.transaction(async (tx) => {
				expect(await markReadUpTo(tx, 'acc_admin', 'conv_1', 'msg_1_30', now)).toBe(true);
				marked.resolve();
				await release.promise;
				await appendLiveEvent(tx, 'conversation.changed', 'conv_1', { conversationId: 'conv_1' }, now);
			});
			await marked.promise;
			const run = applyMessageBatch(db, claimed, messagesOf(claimed, now)!, now);
			await someoneWaitsForALock(db);
			release.resolve();
			await Promise.all([mark, run]);
			const views = (await listConversationViews(db, admin, { limit: 50 })).views;
			// read up to seq 30, then the customer's two of the run
			expect(views.find((view) => view.conversationId === 'conv_1')?.unreadCount).toBe(2);
		}
	);
});
