/**
 * Search from the page (docs/search.md) against the running inbox, with the page's crypto worker client
 * and the worker's code run in this process: the history pass indexes each readable conversation, one at
 * a time with progress, and later reads only what came after what it covered; conversations no longer
 * readable are forgotten; a newer query wins over an older one; stopping drops results and the pass.
 */
import 'fake-indexeddb/auto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { Customer } from '$test-support/customer';
import { deferred } from '$test-support/deferred';
import { InProcessWorker } from '$test-support/in-process-crypto-worker';
import { useStack } from '$test-support/integration';
import { PageNetwork } from '$test-support/page-network';
import { customerWriting, signInWithKeyInRoster, storedMessage } from '$test-support/page-agent';
import { createCryptoWorker, type CryptoWorkerClient } from '../crypto-worker/client';
import { listConversations } from './api';
import { MessageSearch, readableConversations, type SearchHit } from './search.svelte';
import type { ConversationView } from './types';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const harness = useStack('PGlite');
let network: PageNetwork;
let crypto: CryptoWorkerClient;
let handle: string;
let lamp: Customer;
let chair: Customer;
let conversations: ConversationView[];
/** What the pass and the queries asked of the worker, in order, by call. */
const calls: string[] = [];

/** The worker, with each call of the search named in `calls` and, when `hold` gives a promise, held until it settles. */
const searchCrypto = (hold: (call: string) => Promise<void> | undefined = () => undefined) => ({
	searchMessages: async (query: string, limit?: number) => (await hold(`search ${query}`), crypto.searchMessages(query, limit)),
	searchStatus: () => crypto.searchStatus(),
	markSearchCovered: (id: string, messageId: string) => (calls.push(`covered ${id}`), crypto.markSearchCovered(id, messageId)),
	forgetSearch: (ids: string[]) => (calls.push(`forget ${ids.join(' ')}`), crypto.forgetSearch(ids)),
	openConversationKeys: async (keyHandle: string, wraps: Parameters<CryptoWorkerClient['openConversationKeys']>[1]) => {
		await hold(`open ${wraps[0].conversationId}`);
		return crypto.openConversationKeys(keyHandle, wraps);
	},
	decryptHistory: (id: string, items: Parameters<CryptoWorkerClient['decryptHistory']>[1]) => crypto.decryptHistory(id, items)
});
const texts = (hits: readonly SearchHit[]) => hits.map((hit) => hit.snippet.map((part) => part.text).join(''));

beforeAll(async () => {
	network = new PageNetwork(harness.stack().inbox.url);
	vi.stubGlobal('fetch', network.fetch);
	vi.stubGlobal('Worker', InProcessWorker);
	crypto = createCryptoWorker();
	handle = (await signInWithKeyInRoster(harness, crypto)).key.handle;
	lamp = await customerWriting(harness, ['My lamp flickers at night.', 'It is the brass lamp.']);
	chair = await customerWriting(harness, ['The chair arrived with a broken leg.']);
	conversations = (await listConversations()).data;
	return () => {
		InProcessWorker.terminateAll();
		vi.unstubAllGlobals();
	};
}, 300_000);

describe('MessageSearch: the history pass', () => {
	it('reads only conversations whose key this agent holds and that have started', () => {
		const [readable] = conversations;
		const pending = { ...readable, conversationId: 'conv_pending', status: 'pending' as const };
		const notShared = { ...readable, conversationId: 'conv_not_shared', agentWraps: [] };
		expect(readableConversations([pending, readable, notShared]).map((c) => c.conversationId)).toEqual([readable.conversationId]);
	});

	it('indexes every readable conversation, one at a time with its progress, and finds their words', async () => {
		const progress: unknown[] = [];
		const search = new MessageSearch(
			searchCrypto(() => void progress.push(search.progress)),
			handle
		);
		await search.indexHistory(conversations);
		expect(progress).toEqual([
			{ done: 0, total: 2 },
			{ done: 1, total: 2 }
		]);
		expect(search.progress).toBeNull();
		const covered = (await crypto.searchStatus()).coverage;
		expect(Object.keys(covered).sort()).toEqual([lamp.conversationId, chair.conversationId].sort());

		await search.find('  lamp ');
		expect([search.query, new Set(search.hits.map((hit) => hit.conversationId))]).toEqual(['lamp', new Set([lamp.conversationId])]);
		expect(texts(search.hits).sort()).toEqual(['It is the brass lamp.', 'My lamp flickers at night.']);
	});

	it('later reads each conversation only after the message it covered, and finds what came since', async () => {
		const covered = (await crypto.searchStatus()).coverage[lamp.conversationId];
		const newest = await storedMessage(lamp, 'Now the lamp smokes too.');
		const reads = () => network.sent('GET', new RegExp(`/api/v1/conversations/${lamp.conversationId}/messages\\?`)).map((r) => r.path);
		const before = reads().length;
		const search = new MessageSearch(searchCrypto(), handle);
		await search.indexHistory(conversations);
		expect(reads().slice(before)).toEqual([expect.stringContaining(`after=${covered}`)]);
		expect((await crypto.searchStatus()).coverage[lamp.conversationId]).toBe(newest.messageId);
		await search.find('smokes');
		expect(texts(search.hits)).toEqual(['Now the lamp smokes too.']);
	});
});

describe('MessageSearch: queries, forgetting and stopping', () => {
	it('lists conversations only for a query under two characters, and keeps the answer of the newest query', async () => {
		const slow = deferred<void>();
		const search = new MessageSearch(
			searchCrypto((call) => (call === 'search lamp' ? slow.promise : undefined)),
			handle
		);
		await search.find('l');
		expect([search.query, search.hits]).toEqual(['l', []]);
		const older = search.find('lamp');
		await search.find('chair');
		slow.resolve();
		await older;
		expect([search.query, texts(search.hits)]).toEqual(['chair', ['The chair arrived with a broken leg.']]);
	});

	it('forgets the conversations this agent can no longer read', async () => {
		calls.length = 0;
		const search = new MessageSearch(searchCrypto(), handle);
		await search.indexHistory(conversations.filter((c) => c.conversationId === lamp.conversationId));
		expect(calls[0]).toBe(`forget ${chair.conversationId}`);
		expect((await crypto.searchStatus()).conversations).toEqual([lamp.conversationId]);
		await search.find('chair');
		expect(search.hits).toEqual([]);
	});

	it('stops: results and progress go, a running pass indexes nothing more, and answers arriving later are dropped', async () => {
		const opening = deferred<void>();
		const search = new MessageSearch(
			searchCrypto((call) => (call.startsWith('open') ? opening.promise : undefined)),
			handle
		);
		await search.find('lamp');
		expect(search.hits).not.toEqual([]);
		calls.length = 0;
		const pass = search.indexHistory(conversations);
		await vi.waitFor(() => expect(search.progress).toEqual({ done: 0, total: 2 }));
		search.stop();
		expect([search.hits, search.progress]).toEqual([[], null]);
		opening.resolve();
		await pass;
		await search.find('lamp');
		expect([search.hits, search.progress, calls.filter((call) => call.startsWith('covered'))]).toEqual([[], null, []]);
	});
});
