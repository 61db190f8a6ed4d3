/**
 * The thread store and its sender against the real inbox and simulator: paging the history by `before`,
 * catching up after a gap in `seq`, and a send whose answer was lost, retried with the same envelope and
 * Idempotency-Key so the customer receives it once (contract 4.2, 5.1). The crypto is the worker's own API,
 * run in this process.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signedRoster, signingKeyOf } from '$test-support/admin-api';
import { Customer } from '$test-support/customer';
import { ADMIN, AGENT, useStack } from '$test-support/integration';
import { PageNetwork } from '$test-support/page-network';
import { nodeChunkWorkerPool } from '$test-support/node-chunk-workers';
import { createWorkerApi } from '../crypto-worker/api';
import { createInvitation, getConversation, listStoredMessages, login, registerAgentKey } from './api';
import { newIdempotencyKey } from './http';
import { MessageAuthors } from './message-authors';
import { ThreadStore, type ThreadCrypto } from './thread.svelte';
import type { StoredMessage } from './types';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const HISTORY = 120;

describe('ThreadStore with the running inbox (docs/inbox-api.md §6)', () => {
	const harness = useStack('PGlite');
	let network: PageNetwork;
	let crypto: ThreadCrypto;
	let chunkWorkers: ReturnType<typeof nodeChunkWorkerPool> | undefined;
	let agentKeyHandle: string;
	let customer: Customer;
	let accountId: string;
	const previews: string[] = [];

	const openThread = async () => {
		const thread = new ThreadStore(await getConversation(customer.conversationId), {
			crypto,
			agentKeyHandle,
			accountId,
			authors: new MessageAuthors(),
			onPreview: (_, text) => previews.push(text),
			onRead: () => undefined
		});
		await thread.open();
		return thread;
	};

	/** The inbox's stored copy of the customer's message `text` (what `/api/events` delivers), once the webhook arrived. */
	const storedMessage = async (text: string): Promise<StoredMessage> => {
		const said = await customer.say(text);
		let found: StoredMessage | undefined;
		// the webhook takes its time on a loaded machine: the default second of polling is not enough
		await expect
			.poll(
				async () => {
					const stored = await listStoredMessages(customer.conversationId, { afterSeq: said.seq - 1, limit: 1 });
					found = stored.data.find((message) => message.messageId === said.messageId);
					return found !== undefined;
				},
				{ timeout: 15_000 }
			)
			.toBe(true);
		return found!;
	};

	beforeAll(async () => {
		network = new PageNetwork(harness.stack().inbox.url);
		vi.stubGlobal('fetch', network.fetch);
		const worker = createWorkerApi({ startChunkWorkers: (size) => (chunkWorkers = nodeChunkWorkerPool(size)) });
		crypto = {
			openConversationKey: worker.openConversationKey,
			decryptHistory: worker.decryptHistory,
			encryptReply: worker.encryptReply,
			encryptAttachmentMessage: worker.encryptAttachmentMessage,
			encryptAttachment: (file, details, options) => worker.encryptAttachment(file, details, options?.onProgress),
			encryptPrivateRecord: worker.encryptPrivateRecord,
			decryptPrivateRecords: worker.decryptPrivateRecords
		};
		const key = await worker.createAgentKey('a passphrase of this page');
		agentKeyHandle = key.handle;

		accountId = (await login(AGENT.username, AGENT.password)).account.accountId;
		await registerAgentKey({ agentKeyId: key.agentKeyId!, publicKey: key.publicKey });
		const admin = await harness.login(ADMIN);
		const { companyId } = harness.stack().company;
		const next = (await admin.get('/api/admin/roster')).body.next;
		const signingKey = await signingKeyOf(harness.stack());
		const roster = signedRoster(companyId, next.rosterVersion, [{ agentKeyId: key.agentKeyId!, publicKey: key.publicKey }], signingKey);
		expect((await admin.post('/api/admin/roster', roster)).status).toBe(201);

		const invitation = await createInvitation(newIdempotencyKey('invite'));
		customer = await Customer.redeem(harness.stack().simUrl, { link: invitation.link });
		for (let n = 1; n <= HISTORY; n++) await customer.say(`message ${n}`);
		await vi.waitFor(
			async () => {
				if ((await getConversation(customer.conversationId)).agentWraps.length !== 1) throw new Error('no wrap for the agent yet');
			},
			{ timeout: 30_000, interval: 100 }
		);
	}, 300_000);

	afterAll(() => {
		vi.unstubAllGlobals();
		chunkWorkers?.terminate();
	});

	const texts = (thread: ThreadStore) => thread.messages.map((message) => message.text);
	const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `message ${from + i}`);

	it('opens the key and shows the newest page; older pages come by `before` until the first message', async () => {
		const thread = await openThread();
		expect([thread.keyState, thread.composerBlockedReason, thread.loadError]).toEqual(['open', null, null]);
		expect(texts(thread)).toEqual(numbered(HISTORY - 49, HISTORY));
		expect(thread.hasOlder).toBe(true);
		expect(previews.at(-1)).toBe(`message ${HISTORY}`);

		await thread.loadOlder();
		expect(texts(thread)).toEqual(numbered(HISTORY - 99, HISTORY));
		await thread.loadOlder();
		expect(texts(thread)).toEqual(numbered(1, HISTORY));
		expect(thread.hasOlder).toBe(false);
		const seqs = thread.messages.map((message) => message.seq!);
		expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

		const before = network.requests.length;
		await thread.loadOlder();
		expect(network.requests.length).toBe(before);
		thread.dispose();
		expect(thread.messages).toEqual([]);
	});

	it('adds the next live message at once, and fetches what it missed when `seq` jumps', async () => {
		const thread = await openThread();
		const next = await storedMessage('the next one');
		const afterCalls = () => network.sent('GET', /\/messages\?.*after=/).length;
		const catchUps = afterCalls();
		await thread.receive(next);
		expect(texts(thread).at(-1)).toBe('the next one');
		expect(afterCalls()).toBe(catchUps);

		// two messages the live stream never delivered, then a third
		await storedMessage('missed 1');
		await storedMessage('missed 2');
		const third = await storedMessage('after the gap');
		await thread.receive(third);
		expect(texts(thread).slice(-4)).toEqual(['the next one', 'missed 1', 'missed 2', 'after the gap']);
		expect(afterCalls()).toBe(catchUps + 1);

		// the same message again changes nothing
		await thread.receive(third);
		expect(texts(thread).filter((text) => text === 'after the gap')).toHaveLength(1);
		thread.dispose();
	});

	it('leaves a live message older than the loaded pages to `loadOlder`, so the history has no hole', async () => {
		const thread = await openThread();
		const [first] = (await listStoredMessages(customer.conversationId, { afterSeq: 0, limit: 1 })).data;
		const shown = thread.messages.length;
		await thread.receive(first);
		expect(thread.messages).toHaveLength(shown);
		expect(thread.messages.some((message) => message.messageId === first.messageId)).toBe(false);
		thread.dispose();
	});

	it('resends a reply whose answer was lost with the same envelope and key: the customer gets it once', async () => {
		const thread = await openThread();
		network.loseNextAnswer('POST', /^\/api\/v1\/messages$/);
		await thread.sendText('Your lamp ships today.');
		await expect.poll(() => thread.messages.at(-1)?.state, { timeout: 10_000 }).toBe('queued');
		const waiting = thread.messages.at(-1)!;
		expect(waiting).toMatchObject({ text: 'Your lamp ships today.', messageId: null });
		expect(waiting.sendError).toMatch(/sent by itself/);

		await thread.retry(waiting.key);
		const sent = thread.messages.at(-1)!;
		expect(sent).toMatchObject({ state: 'sent', text: 'Your lamp ships today.' });
		expect(sent.messageId).toMatch(/\S/);

		const attempts = network.sent('POST', /^\/api\/v1\/messages$/);
		expect(attempts).toHaveLength(2);
		const keys = attempts.map((attempt) => attempt.headers.get('idempotency-key'));
		expect(keys[0]).toMatch(/^send_/);
		expect(keys[1]).toBe(keys[0]);
		const atCustomer = (await customer.messages()).filter((message: { text?: string }) => message.text === 'Your lamp ships today.');
		expect(atCustomer).toHaveLength(1);
		expect([thread.authorOf(sent), previews.at(-1)]).toEqual(['You', 'You: Your lamp ships today.']);
		thread.dispose();

		// after a reload the inbox names the sender: the proxy recorded it before the first attempt
		const reopened = await openThread();
		const stored = reopened.messages.find((message) => message.messageId === sent.messageId)!;
		expect(reopened.authorOf(stored)).toBe('You');
		expect(reopened.authorOf(reopened.messages[0])).toBeNull(); // the customer's
		reopened.dispose();
	});

	it('sends a waiting reply by itself when the connection returns, once, and never one the agent discarded', async () => {
		const thread = await openThread();
		const earlier = network.sent('POST', /^\/api\/v1\/messages$/).length;
		network.loseNextAnswer('POST', /^\/api\/v1\/messages$/);
		await thread.sendText('Back in a minute.');
		await expect.poll(() => thread.messages.at(-1)?.state, { timeout: 10_000 }).toBe('queued');
		network.cutNextRequest('POST', /^\/api\/v1\/messages$/);
		await thread.sendText('Ignore this.');
		await expect.poll(() => thread.messages.at(-1)?.state, { timeout: 10_000 }).toBe('queued');
		thread.discard(thread.messages.at(-1)!.key);

		thread.connectionReturned();
		thread.connectionReturned(); // twice at once: still one attempt
		await expect
			.poll(() => thread.messages.find((message) => message.text === 'Back in a minute.')?.state, { timeout: 10_000 })
			.toBe('sent');
		const attempts = network
			.sent('POST', /^\/api\/v1\/messages$/)
			.slice(earlier)
			.map((attempt) => attempt.headers.get('idempotency-key'));
		expect(attempts).toHaveLength(3);
		expect(attempts[2]).toBe(attempts[0]);
		const atCustomer = (await customer.messages()).map((message: { text?: string }) => message.text);
		expect(atCustomer.filter((text: string | undefined) => text === 'Back in a minute.')).toHaveLength(1);
		expect(atCustomer).not.toContain('Ignore this.');
		expect(thread.messages.some((message) => message.text === 'Ignore this.')).toBe(false);
		thread.dispose();
	});
});
