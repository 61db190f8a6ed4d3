/**
 * The sender against the real inbox and simulator (contract 4.2, 4.3, 5.1; docs/inbox-api.md §11
 * "Connection and outbox"): a send is in the outbox with its Idempotency-Key before its first attempt;
 * a refusal fails it and its retry takes a new key for the same envelope; a send without an answer
 * waits and is tried again on a growing timer, and at once when the connection returns; a failed upload
 * is tried again whole; a reload shows the unconfirmed sends again and sends each once. The thread is a
 * plain list here: the sender sees only what a thread gives it (SendingThread).
 */
import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Customer } from '$test-support/customer';
import { xhrOver } from '$test-support/fetch-xhr';
import { startFlakyFront, type FlakyFront } from '$test-support/flaky-front';
import { useStack } from '$test-support/integration';
import { MemoryStorage } from '$test-support/memory-storage';
import { nodeChunkWorkerPool, type NodeChunkWorkers } from '$test-support/node-chunk-workers';
import { PageNetwork } from '$test-support/page-network';
import { customerWriting, signInWithKeyInRoster } from '$test-support/page-agent';
import { createWorkerApi } from '../crypto-worker/api';
import { ContractError } from '../errors';
import { v1 } from '../wire/v1';
import { getConversation, getTeam } from './api';
import { connectivity } from './connectivity.svelte';
import { Outbox } from './outbox';
import { v1Call } from './proxy';
import { toThreadMessage, type ThreadMessage } from './thread-messages';
import { RESEND_DELAYS_MS, ThreadSender, type SendCrypto, type SendingThread } from './thread-sender';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const SEND = /^\/api\/v1\/messages$/;
const UPLOAD = /\/attachments$/;

let front: FlakyFront;
const harness = useStack('PGlite', { serviceBaseUrl: async (simUrl) => (front = await startFlakyFront(simUrl)).url });
let network: PageNetwork;
let crypto: SendCrypto;
let chunkWorkers: NodeChunkWorkers | undefined;
let customer: Customer;
let keyVersion: number;
let accountId: string;

/** A sender over `box`, its thread a plain list with the key open (`keyVersion`) or not (null). */
const senderOn = (box: Outbox, version: number | null = keyVersion) => {
	let shown: ThreadMessage[] = [];
	const delivered: Array<{ clientMessageId: string; messageId: string | null | undefined }> = [];
	const thread: SendingThread = {
		conversationId: customer.conversationId,
		crypto,
		messages: () => shown,
		show: (change) => (shown = change(shown)),
		keyVersion: () => {
			if (version === null) throw new ContractError('CONVERSATION_KEY_NOT_OPEN', 'the conversation key is not open');
			return version;
		},
		delivered: (clientMessageId, message) => delivered.push({ clientMessageId, messageId: message?.messageId })
	};
	return { sender: new ThreadSender(thread, box), thread, shown: () => shown, delivered };
};
const outbox = () => new Outbox(accountId, new MemoryStorage());
const last = (shown: () => readonly ThreadMessage[]) => shown().at(-1)!;
const received = async (text: string) => (await customer.messages()).filter((message: { text?: string }) => message.text === text);

beforeAll(async () => {
	network = new PageNetwork(harness.stack().inbox.url);
	vi.stubGlobal('fetch', network.fetch);
	vi.stubGlobal('XMLHttpRequest', xhrOver(network.fetch));
	const worker = createWorkerApi({ startChunkWorkers: (size) => (chunkWorkers = nodeChunkWorkerPool(size)) });
	await worker.useChunkWorkers(2);
	crypto = {
		decryptHistory: worker.decryptHistory,
		encryptReply: worker.encryptReply,
		encryptAttachmentMessage: worker.encryptAttachmentMessage,
		encryptAttachment: (file, details, options) => worker.encryptAttachment(file, details, options?.onProgress)
	};
	const agent = await signInWithKeyInRoster(harness, worker);
	accountId = agent.accountId;
	customer = await customerWriting(harness, ['Can someone help me?']);
	const [{ wrap }] = (await getConversation(customer.conversationId)).agentWraps;
	({ keyVersion } = await worker.openConversationKey(agent.key.handle, customer.conversationId, wrap));
}, 300_000);

afterEach(() => {
	vi.useRealTimers();
});

afterAll(() => {
	vi.unstubAllGlobals();
	chunkWorkers?.terminate();
});

describe('ThreadSender: a text, kept with its key before the first attempt (contract 4.2, 5.1)', () => {
	it('keeps a text in the outbox with its key before the first attempt, and shows it sent once the service stored it', async () => {
		const box = outbox();
		const { sender, shown, delivered } = senderOn(box);
		const attempts = network.sent('POST', SEND).length;
		await sender.sendText('   ');
		await expect(sender.sendText('x'.repeat(65_537))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		await expect(senderOn(box, null).sender.sendText('no key')).rejects.toMatchObject({
			code: 'CONVERSATION_KEY_NOT_OPEN'
		});
		expect([shown(), box.list(), network.sent('POST', SEND).length]).toEqual([[], [], attempts]);

		await sender.sendText('Your order left the warehouse.');
		expect(last(shown)).toMatchObject({ state: 'sending', messageId: null, text: 'Your order left the warehouse.' });
		const [entry] = box.list(customer.conversationId);
		expect(entry).toMatchObject({ localId: last(shown).key, contentType: 'text', idempotencyKey: expect.stringMatching(/^send_/) });
		await expect.poll(() => last(shown).state, { timeout: 10_000 }).toBe('sent');
		expect(last(shown)).toMatchObject({ messageId: expect.stringMatching(/\S/), seq: expect.any(Number) });
		expect(delivered).toEqual([{ clientMessageId: entry.encryption.clientMessageId, messageId: last(shown).messageId }]);
		expect(network.sent('POST', SEND).at(-1)?.headers.get('idempotency-key')).toBe(entry.idempotencyKey);
		expect(box.list()).toEqual([]);
		expect(await received('Your order left the warehouse.')).toHaveLength(1);
	});
});

describe('ThreadSender: refused, or waiting for the connection (docs/inbox-api.md §11 "Connection and outbox")', () => {
	it('fails a send the service refused, retries it with a new key for the same envelope, and waits when the service is down', async () => {
		const box = outbox();
		const { sender, shown } = senderOn(box);
		front.failNext(1, { status: 409 });
		await sender.sendText('Refused once.');
		await expect.poll(() => last(shown).state, { timeout: 10_000 }).toBe('failed');
		expect(last(shown).sendError).toMatch(/\S/);
		const [refused] = network.sent('POST', SEND).slice(-1);
		const [entry] = box.list(customer.conversationId);
		expect(entry.idempotencyKey).not.toBe(refused.headers.get('idempotency-key'));

		await sender.retry(last(shown).key);
		expect(last(shown).state).toBe('sent');
		expect(network.sent('POST', SEND).at(-1)?.headers.get('idempotency-key')).toBe(entry.idempotencyKey);
		expect(await received('Refused once.')).toHaveLength(1);

		// the service answers 5xx (after the inbox's own tries): the outcome is unknown, the send waits with its key
		front.failNext(3, { status: 503 });
		await sender.sendText('Sent when the service is back.');
		await expect.poll(() => last(shown).state, { timeout: 10_000 }).toBe('queued');
		expect(last(shown).sendError).toMatch(/sent by itself/);
		const waiting = box.list(customer.conversationId)[0].idempotencyKey;
		sender.connectionReturned();
		await expect.poll(() => last(shown).state, { timeout: 10_000 }).toBe('sent');
		expect(network.sent('POST', SEND).at(-1)?.headers.get('idempotency-key')).toBe(waiting);
		sender.stop();
	});

	it('tries a waiting send again after 5, 10, 20 and 30 s, with the same key, and at once when the connection returns', async () => {
		vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
		// no request reaches the service while the clock is the spec's: the inbox fails each attempt itself
		const settled = () => new Promise((resolve) => setImmediate(resolve));
		const attempts = () => network.sent('POST', SEND).length;
		const { sender, shown } = senderOn(outbox());
		network.failNextRequest('POST', SEND);
		await sender.sendText('Patience.');
		await settled();
		expect([last(shown).state, connectivity.state]).toEqual(['queued', 'connected']);
		for (const delay of [...RESEND_DELAYS_MS, 30_000]) {
			const before = attempts();
			network.failNextRequest('POST', SEND);
			await vi.advanceTimersByTimeAsync(delay - 1);
			expect(attempts()).toBe(before);
			await vi.advanceTimersByTimeAsync(1);
			await settled();
			expect([attempts(), last(shown).state]).toEqual([before + 1, 'queued']);
		}
		vi.useRealTimers();
		sender.connectionReturned();
		await expect.poll(() => last(shown).state, { timeout: 10_000 }).toBe('sent');
		const keys = new Set(
			network
				.sent('POST', SEND)
				.slice(-(RESEND_DELAYS_MS.length + 3))
				.map((attempt) => attempt.headers.get('idempotency-key'))
		);
		expect(keys.size).toBe(1);
		expect(await received('Patience.')).toHaveLength(1);
		sender.stop();
	});

	it('while the page knows the server is down a send waits at once and is not tried, until the connection is heard returning', async () => {
		vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
		const attempts = () => network.sent('POST', SEND).length;
		const { sender, shown } = senderOn(outbox());
		network.cutNextRequest('GET', /^\/api\/team$/);
		await expect(getTeam()).rejects.toBeInstanceOf(TypeError);
		expect(connectivity.state).toBe('server-unreachable');
		const before = attempts();
		await sender.sendText('Sent when the server answers.');
		expect(last(shown)).toMatchObject({ state: 'queued', sendError: expect.stringMatching(/sent by itself/) });
		await vi.advanceTimersByTimeAsync(RESEND_DELAYS_MS.reduce((sum, delay) => sum + delay, 0) + 30_000);
		expect([attempts(), last(shown).state]).toEqual([before, 'queued']);
		vi.useRealTimers();
		await getTeam();
		expect(connectivity.state).toBe('connected');
		sender.connectionReturned();
		await expect.poll(() => last(shown).state, { timeout: 10_000 }).toBe('sent');
		expect(attempts()).toBe(before + 1);
		expect(await received('Sent when the server answers.')).toHaveLength(1);
		sender.stop();
	});
});

describe('ThreadSender: files (contract 4.3)', () => {
	it('sends files in the order given; a failed upload is tried again whole, and a discarded one never goes', async () => {
		const box = outbox();
		const { sender, shown } = senderOn(box);
		const file = (name: string) => new File([`the bytes of ${name}`], name, { type: 'text/plain' });
		network.failNextRequest('POST', UPLOAD);
		await sender.sendFiles([{ file: file('a.txt'), caption: 'first' }, { file: file('b.txt') }]);
		const bubble = (name: string) => shown().find((message) => message.attachment?.name === name);
		expect([bubble('a.txt')?.state, bubble('b.txt')?.state]).toEqual(['failed', 'sent']);
		expect(bubble('a.txt')?.sendError).toMatch(/\S/);

		await sender.retry(bubble('a.txt')!.key);
		expect(bubble('a.txt')).toMatchObject({ state: 'sent', attachment: { name: 'a.txt', caption: 'first' } });
		const names = async () =>
			(await customer.messages()).flatMap((message: { meta?: { name: string } }) => (message.meta ? [message.meta.name] : []));
		await expect.poll(names, { timeout: 15_000 }).toEqual(['b.txt', 'a.txt']);

		network.failNextRequest('POST', UPLOAD);
		await sender.sendFiles([{ file: file('c.txt') }]);
		expect(bubble('c.txt')?.state).toBe('failed');
		sender.discard(bubble('c.txt')!.key);
		await sender.retry(bubble('c.txt')?.key ?? 'gone');
		expect([bubble('c.txt'), box.list(), await names()]).toEqual([undefined, [], ['b.txt', 'a.txt']]);
	});
});

describe('ThreadSender: after a reload', () => {
	it('after a reload shows the unconfirmed sends again and sends each once; one the service stored meanwhile is not sent again', async () => {
		const box = outbox();
		const before = senderOn(box);
		const closed = before.sender;
		network.loseNextAnswer('POST', SEND);
		await closed.sendText('Stored, but the page never heard.');
		await expect.poll(() => before.shown().map((message) => message.state), { timeout: 10_000 }).toEqual(['queued']);
		// the page now knows the server did not answer: this one waits without being tried
		const attempts = network.sent('POST', SEND).length;
		await closed.sendText('Never left the page.');
		expect([before.shown().map((message) => message.state), network.sent('POST', SEND).length]).toEqual([['queued', 'queued'], attempts]);
		closed.stop();
		closed.connectionReturned();
		expect(box.list()).toHaveLength(2);

		// the next page reads the history, with the copy the service stored, then restores the outbox
		const after = senderOn(box);
		const page = await v1Call(v1.listMessages(customer.conversationId, { limit: 50 }));
		const results = await crypto.decryptHistory(
			customer.conversationId,
			page.data.map((item) => ({ encryption: item.encryption, senderType: item.senderType, contentType: item.contentType }))
		);
		after.thread.show(() => page.data.map((item, index) => toThreadMessage(item, results[index], (code) => code)));
		await after.sender.restorePending();
		const local = () => after.shown().filter((message) => message.messageId === null || message.key.startsWith('local_'));
		expect(local().map((message) => message.text)).toEqual(['Never left the page.']);
		await expect.poll(() => after.shown().at(-1)?.state, { timeout: 10_000 }).toBe('sent');
		expect(box.list()).toEqual([]);
		expect([await received('Stored, but the page never heard.'), await received('Never left the page.')].map((m) => m.length)).toEqual([
			1, 1
		]);
	});
});
