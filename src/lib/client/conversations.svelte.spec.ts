/**
 * The conversation list store against the running inbox: a load started later wins over an earlier one
 * whose answer arrives last, a change that came live during a load outlives the load's older pages, and a
 * list cleared on sign-out stays empty (docs/inbox-api.md §3); the rows' draft marker follows the drafts;
 * and what the page reads of the list (rows, counts, deadlines) follows each live change and filter (§4).
 */
import { flushSync } from 'svelte';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { AGENT, useStack } from '$test-support/integration';
import { PageNetwork } from '$test-support/page-network';
import { createInvitation, listConversations, login } from './api';
import { ConversationStore } from './conversations.svelte';
import { newIdempotencyKey } from './http';
import type { ConversationView } from './types';
import { conversationView } from '$test-support/conversation-view';
import { targetPolicy } from '../service-targets/targets';

vi.setConfig({ testTimeout: 120_000 });

const LIST = /^\/api\/conversations\?/;

describe('ConversationStore with the running inbox', () => {
	const harness = useStack('PGlite');
	let network: PageNetwork;

	beforeAll(async () => {
		network = new PageNetwork(harness.stack().inbox.url);
		// the agent's key is in the roster, so she may make invitations (docs/inbox-api.md §1 "Access")
		await harness.loginInRoster();
		vi.stubGlobal('fetch', network.fetch);
		await login(AGENT.username, AGENT.password);
		await createInvitation(newIdempotencyKey('invite'));
		return () => vi.unstubAllGlobals();
	});

	const ids = (store: ConversationStore) => store.items.map((item) => item.conversationId).sort();

	it('keeps the answer of the latest load when an earlier one answers last', async () => {
		const store = new ConversationStore();
		const slow = network.holdNextAnswer('GET', LIST);
		const earlier = store.load();
		await slow.arrived;
		const created = await createInvitation(newIdempotencyKey('invite'));

		await store.load();
		expect(ids(store)).toContain(created.conversationId);
		const latest = ids(store);

		slow.release();
		await earlier;
		expect(ids(store)).toEqual(latest);
		expect([store.loading, store.complete, store.error]).toEqual([false, true, null]);
	});

	it('keeps a change that came live while a load was on its way, read before that change', async () => {
		const { conversationId } = await createInvitation(newIdempotencyKey('invite'));
		const store = new ConversationStore();
		await store.load();
		const before = store.get(conversationId)!;
		const slow = network.holdNextAnswer('GET', LIST);
		const reloading = store.load();
		await slow.arrived;
		// a live event brings the conversation as it is after a change the held page predates
		const changed = { ...before, assignee: { accountId: 'acct_other', displayName: 'Ben' }, unreadCount: 3 };
		store.upsert(changed);

		slow.release();
		await reloading;
		expect(store.get(conversationId)).toEqual(changed);
		// once the load is over, the next load's pages are the newest word again
		await store.load();
		expect(store.get(conversationId)).toEqual(before);
	});

	it('tells the live event id its first page reflects, the newest one committed before it was read', async () => {
		const { liveEventId } = await listConversations({ limit: 1 });
		const store = new ConversationStore();
		const heard: number[] = [];
		await store.load((id) => heard.push(id));
		expect(heard).toEqual([liveEventId]);
	});

	it("shows the server's counts of the whole list while its pages are on their way, then the rows' own", async () => {
		const everything = await listConversations({ limit: 200 });
		expect(everything.nextCursor).toBeNull();
		const store = new ConversationStore();
		const slow = network.holdNextAnswer('GET', LIST);
		const loading = store.load();
		await slow.arrived;
		await vi.waitFor(() => expect(store.counts.total.all).toBe(everything.data.length));
		expect([store.items.length, store.assignmentCounts.all, store.lifecycleCounts.open]).toEqual([
			0,
			everything.data.filter((item) => item.status !== 'closed' && item.teamState === 'open').length,
			everything.data.filter((item) => item.teamState === 'open').length
		]);
		const whileLoading = store.counts;

		slow.release();
		await loading;
		expect(store.items).toHaveLength(everything.data.length);
		expect(store.counts).toEqual(whileLoading);
	});

	it('loads further pages only as the rows shown near the last one loaded, counting the whole list meanwhile', async () => {
		for (let made = 0; made < 4; made++) await createInvitation(newIdempotencyKey('invite'));
		const every = await listConversations({ limit: 200 });
		const whole = every.data.length;
		const store = new ConversationStore('', undefined, { pageSize: 2, countsRefreshMs: 500 });
		const pagesBefore = network.sent('GET', LIST).length;
		await store.load();
		await vi.waitFor(() => expect(store.counts.total.all).toBe(whole));
		expect([store.items.length, store.complete, network.sent('GET', LIST).length - pagesBefore]).toEqual([2, false, 1]);

		// the top rows shown, far from the last one loaded: still nothing more asked
		store.showingUpTo(0);
		// a row the list has changes in place: the whole list's counts follow at once
		const [top] = store.items;
		store.upsert({ ...top, unreadCount: top.unreadCount + 5, teamState: 'snoozed' });
		expect([store.counts.unread.all, store.lifecycleCounts.snoozed]).toEqual([
			every.data.filter((item) => item.unreadCount > 0 || item.conversationId === top.conversationId).length,
			every.data.filter((item) => item.teamState === 'snoozed').length + 1
		]);

		// one it has not loaded changes: its earlier share is unknown, so the counts are asked again
		const countsAsked = network.sent('GET', /^\/api\/conversations\/counts/).length;
		// (two at once: asked once, not more often than every countsRefreshMs)
		for (const unloaded of every.data.slice(-2)) store.upsert({ ...unloaded, lastActivityAt: new Date().toISOString() });
		const countsSent = () => network.sent('GET', /^\/api\/conversations\/counts/).length;
		await vi.waitFor(() => expect(countsSent()).toBe(countsAsked + 1), { timeout: 10_000 });
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		expect(countsSent()).toBe(countsAsked + 1);
		expect(store.counts.total.all).toBe(whole);

		// the page asks for rows as it shows them: a filter that lets none through keeps loading to the end
		store.status = 'closed';
		const stop = $effect.root(() => {
			$effect(() => store.showingUpTo(store.visible.length));
		});
		await vi.waitFor(() => expect(store.complete).toBe(true));
		stop();
		expect(store.items.map((item) => item.conversationId).sort()).toEqual(every.data.map((item) => item.conversationId).sort());
		expect(store.get(top.conversationId)?.teamState).toBe('snoozed');
		expect(store.counts.total.all).toBe(whole);
	});

	it('stays empty when cleared while a load is on its way', async () => {
		const store = new ConversationStore();
		const slow = network.holdNextAnswer('GET', LIST);
		const loading = store.load();
		await slow.arrived;
		store.clear();
		slow.release();
		await loading;
		expect([store.items, store.loading, store.complete]).toEqual([[], false, false]);
	});

	it('knows which conversations have a draft in this browser, follows each write, and forgets them when cleared', () => {
		const store = new ConversationStore();
		store.draftsAre(['conv_a', 'conv_b']);
		store.draftChanged('conv_a', false);
		store.draftChanged('conv_c', true);
		expect([...store.drafts].sort()).toEqual(['conv_b', 'conv_c']);
		store.clear();
		expect(store.drafts.size).toBe(0);
	});
});

describe('ConversationStore as the page reads it', () => {
	const START = Date.parse('2026-11-23T10:00:00Z');
	const started = new Date(START).toISOString();
	const conversation = (id: string, extra: Partial<ConversationView> = {}) =>
		conversationView(id, started, { createdAt: started, startedAt: started, firstCustomerAt: started, ...extra });

	it('tells whoever reads its rows, counts and deadlines of each live change and each filter change', () => {
		const store = new ConversationStore('acc_me');
		store.policy = targetPolicy({ firstResponseMinutes: 60, resolutionMinutes: null, businessHoursOnly: false, byLabel: {} }, null);
		store.now = START + 2 * 3_600_000;
		store.upsert(conversation('conv_a'));
		const seen: unknown[] = [];
		const stop = $effect.root(() => {
			$effect(() => {
				seen.push([
					store.visible.map((item) => item.conversationId),
					store.counts.unread.all,
					store.assignmentCounts.mine,
					store.serviceCounts.overdue,
					store.dueOf('conv_b')?.kind ?? null
				]);
			});
		});
		flushSync();
		store.upsert(conversation('conv_b', { lastActivityAt: new Date(START + 60_000).toISOString(), unreadCount: 1 }));
		flushSync();
		store.upsert(
			conversation('conv_a', {
				lastActivityAt: new Date(START + 120_000).toISOString(),
				assignee: { accountId: 'acc_me', displayName: 'Me' }
			})
		);
		flushSync();
		store.unreadOnly = true;
		flushSync();
		stop();
		expect(seen).toEqual([
			[['conv_a'], 0, 0, 1, null],
			[['conv_b', 'conv_a'], 1, 0, 2, 'firstResponse'],
			[['conv_a', 'conv_b'], 1, 1, 2, 'firstResponse'],
			[['conv_b'], 1, 1, 2, 'firstResponse']
		]);
	});
});
