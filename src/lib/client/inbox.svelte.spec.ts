/**
 * The signed-in, unlocked inbox against the running inbox and simulator, with the page's crypto worker
 * client, the worker's code run in this process and an EventSource over the page's network: starting
 * (the list, then the live stream from the event its first page reflects), reading labels and canned
 * replies again when a roster grants the agent access (`resync`), live events routed to the list, the
 * alerts and the thread on screen, the outbox of other conversations when the connection returns,
 * stopping, a new inbox's previews and search index, and a locked key that keeps the list and the stream
 * but no plaintext (docs/inbox-api.md §3, §7, §11; docs/search.md; docs/crypto-worker.md "Unlock once per
 * browser session").
 */
import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { Customer } from '$test-support/customer';
import { InProcessWorker } from '$test-support/in-process-crypto-worker';
import { ADMIN, useStack } from '$test-support/integration';
import { pageEventSource, type PageEventSourceClass } from '$test-support/page-event-source';
import { PageNetwork } from '$test-support/page-network';
import { customerWriting, PAGE_PASSPHRASE, putInRoster, signInWithKey, storedMessage } from '$test-support/page-agent';
import { createCryptoWorker, type CryptoWorkerClient, type UnlockedKey } from '../crypto-worker/client';
import { listConversations } from './api';
import { InboxState } from './inbox.svelte';
import type { Alert } from './notifications';
import { Outbox } from './outbox';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const SEND = /^\/api\/v1\/messages$/;

const harness = useStack('PGlite');
let network: PageNetwork;
let EventSource: PageEventSourceClass;
let crypto: CryptoWorkerClient;
let agent: { accountId: string; key: UnlockedKey };
let inbox: InboxState;
let first: Customer;
let second: Customer;
/** A customer who wrote before the roster granted the agent access. */
let beforeRoster: Customer;
const alerts: Alert[] = [];
const wait = { timeout: 30_000 };
const companyTexts = async (customer: Customer) =>
	(await customer.messages()).filter((m: { senderType: string }) => m.senderType === 'company').map((m: { text?: string }) => m.text);

beforeAll(async () => {
	network = new PageNetwork(harness.stack().inbox.url);
	EventSource = pageEventSource(network);
	vi.stubGlobal('fetch', network.fetch);
	vi.stubGlobal('Worker', InProcessWorker);
	vi.stubGlobal('EventSource', EventSource);
	crypto = createCryptoWorker();
	const admin = await harness.login(ADMIN);
	expect((await admin.post('/api/admin/labels', { name: 'Urgent', color: 'red' })).status).toBe(201);
	expect((await admin.post('/api/canned-replies', { scope: 'team', shortcut: 'thanks', body: 'Thank you!' })).status).toBe(201);
	agent = await signInWithKey(crypto);
	return () => {
		inbox?.stop();
		InProcessWorker.terminateAll();
		vi.unstubAllGlobals();
	};
}, 300_000);

describe('InboxState: starting, and the roster that grants access (docs/inbox-api.md §3, §7)', () => {
	it('starts with the list, then the live stream from the event its first page reflects; outside the roster, no labels or replies', async () => {
		const { liveEventId } = await listConversations({ limit: 1 });
		inbox = new InboxState(crypto, agent.key.handle, agent.accountId);
		inbox.onAlert = (alert) => alerts.push(alert);
		inbox.start({ rosterAgent: false });
		await expect.poll(() => inbox.live.status, wait).toBe('live');
		expect(EventSource.opened.map((source) => source.url)).toEqual([`/api/events?lastEventId=${liveEventId}`]);
		await expect.poll(() => inbox.companyFingerprint, wait).toMatch(/\S/);
		await expect.poll(() => inbox.team.map((member) => member.displayName).sort(), wait).toEqual(['Ada Agent', 'Grace Admin']);
		// not asked by an account outside the roster, which the server would refuse
		expect([inbox.labels, inbox.cannedReplies, inbox.conversations.items]).toEqual([[], [], []]);
		expect([network.sent('GET', /^\/api\/labels$/), network.sent('GET', /^\/api\/canned-replies$/)]).toEqual([[], []]);
	});

	it('reads the labels, the canned replies and the list again when a roster grants the agent access (resync), and opens the thread on screen', async () => {
		// a conversation from before the roster, open on screen without a key for this agent
		const invitation = await (await harness.login(ADMIN)).post('/api/invites', {});
		beforeRoster = await Customer.redeem(harness.stack().simUrl, { link: invitation.body.link });
		await beforeRoster.say('Before the roster.');
		await expect.poll(() => inbox.conversations.get(beforeRoster.conversationId)?.status, wait).toBe('active');
		const thread = await inbox.openThread(beforeRoster.conversationId);
		await expect.poll(() => thread.keyState, wait).toBe('no-access');
		const lists = network.sent('GET', /^\/api\/conversations\?/).length;
		await putInRoster(harness, agent.key);
		// two reads, answered in either order
		await expect
			.poll(() => [inbox.cannedReplies.map((reply) => reply.shortcut), inbox.labels.map((label) => label.name)], wait)
			.toEqual([['thanks'], ['Urgent']]);
		expect(network.sent('GET', /^\/api\/conversations\?/).length).toBe(lists + 1);
		// the grant sealed its key for this agent: the thread takes the list's new view and opens
		await expect.poll(() => thread.messages.map((message) => message.text), wait).toEqual(['Before the roster.']);
		inbox.closeThread(thread);
		alerts.length = 0;
	});
});

describe('InboxState: live events, routed to the list, the alerts and the thread on screen', () => {
	it('hears of a new conversation and of its messages live: its row, its preview, and an alert for each', async () => {
		first = await customerWriting(harness, []);
		await first.say('Where is my parcel?');
		await expect.poll(() => inbox.conversations.previews.get(first.conversationId), wait).toBe('Where is my parcel?');
		expect(inbox.conversations.get(first.conversationId)?.status).toBe('active');
		expect(alerts).toEqual([
			{ kind: 'conversation', conversationId: first.conversationId },
			{ kind: 'message', conversationId: first.conversationId }
		]);
	});

	it('routes the events of the conversation on screen to its thread as well, and raises no alert for it', async () => {
		const thread = await inbox.openThread(first.conversationId);
		await expect.poll(() => thread.messages.map((message) => message.text), wait).toEqual(['Where is my parcel?']);
		alerts.length = 0;
		await first.say('Any news?');
		await expect.poll(() => thread.messages.at(-1)?.text, wait).toBe('Any news?');
		expect([inbox.conversations.previews.get(first.conversationId), alerts]).toEqual(['Any news?', []]);

		const admin = await harness.login(ADMIN);
		expect((await admin.put(`/api/conversations/${first.conversationId}/assignee`, { accountId: agent.accountId })).status).toBe(200);
		await expect.poll(() => inbox.conversations.get(first.conversationId)?.assignee?.accountId, wait).toBe(agent.accountId);
		expect(thread.conversation.assignee?.accountId).toBe(agent.accountId);
	});
});

describe('InboxState: the outbox, stopping and starting again (docs/inbox-api.md §11; docs/search.md)', () => {
	it('sends the replies that waited in other conversations when the connection returns, each once', async () => {
		second = await customerWriting(harness, []);
		await second.say('Hello from the second.');
		network.cutNextRequest('POST', SEND);
		await inbox.thread!.sendReply('Sent from the outbox.');
		await expect.poll(() => inbox.thread?.messages.at(-1)?.state, wait).toBe('queued');
		const outbox = new Outbox(agent.accountId);
		expect(outbox.list().map((entry) => entry.conversationId)).toEqual([first.conversationId]);
		await inbox.openThread(second.conversationId);

		inbox.connectionReturned();
		await expect.poll(() => outbox.list(), wait).toEqual([]);
		expect(await companyTexts(first)).toEqual(['Sent from the outbox.']);
	});

	it('stops: the stream closes, the thread forgets its plaintext, the list empties, and nothing is sent any more', async () => {
		const [source] = EventSource.opened;
		const thread = inbox.thread!;
		expect(thread.messages).not.toEqual([]);
		inbox.stop();
		expect([inbox.live.status, source.readyState, inbox.thread, thread.messages]).toEqual(['stopped', EventSource.CLOSED, null, []]);
		expect([inbox.conversations.items, inbox.conversations.previews.size]).toEqual([[], 0]);
		alerts.length = 0;
		await storedMessage(first, 'After the stop.');
		const sends = network.sent('POST', SEND).length;
		inbox.connectionReturned();
		expect([alerts, inbox.conversations.items, network.sent('POST', SEND).length]).toEqual([[], [], sends]);
	});

	it('when started again (a reload), shows the newest message of each conversation as its preview and indexes each for search', async () => {
		inbox = new InboxState(crypto, agent.key.handle, agent.accountId);
		inbox.onAlert = (alert) => alerts.push(alert);
		inbox.start({ rosterAgent: true });
		await expect
			.poll(() => [first, second].map((customer) => inbox.conversations.previews.get(customer.conversationId)), wait)
			.toEqual(['After the stop.', 'Hello from the second.']);
		const readable = [first, second, beforeRoster].map((customer) => customer.conversationId).sort();
		await expect.poll(async () => (await crypto.searchStatus()).conversations.sort(), wait).toEqual(readable);
		await inbox.search.find('parcel');
		expect(inbox.search.hits.map((hit) => hit.conversationId)).toEqual([first.conversationId]);
	});

	it('locked: forgets every plaintext but keeps the list and the stream, which still count and announce; unlocked, decrypts again', async () => {
		await inbox.openThread(second.conversationId);
		const source = EventSource.opened.at(-1)!;
		await crypto.lock();
		inbox.locked();
		expect([inbox.thread, inbox.conversations.previews.size, inbox.live.status, source.readyState]).toEqual([
			null,
			0,
			'live',
			EventSource.OPEN
		]);
		await expect(inbox.openThread(second.conversationId)).rejects.toMatchObject({ code: 'LOCKED' });

		alerts.length = 0;
		const unread = inbox.conversations.get(second.conversationId)!.unreadCount;
		await second.say('While you were away.');
		await expect.poll(() => inbox.conversations.get(second.conversationId)?.unreadCount, wait).toBe(unread + 1);
		await expect.poll(() => alerts, wait).toEqual([{ kind: 'message', conversationId: second.conversationId }]);
		expect(inbox.conversations.previews.size).toBe(0);
		await inbox.search.find('parcel');
		expect(inbox.search.hits).toEqual([]);

		const key = await crypto.unlock('agent', PAGE_PASSPHRASE);
		inbox.unlocked(crypto, key.handle);
		await expect
			.poll(() => [first, second].map((customer) => inbox.conversations.previews.get(customer.conversationId)), wait)
			.toEqual(['After the stop.', 'While you were away.']);
		await inbox.search.find('parcel');
		expect(inbox.search.hits.map((hit) => hit.conversationId)).toEqual([first.conversationId]);
		expect((await inbox.openThread(second.conversationId)).conversationId).toBe(second.conversationId);
	});
});
