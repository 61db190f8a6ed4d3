/**
 * The thread store and its sender against the real inbox and simulator: paging the history by `before`,
 * catching up after a gap in `seq`, a send whose answer was lost, retried with the same envelope and
 * Idempotency-Key so the customer receives it once (contract 4.2, 5.1), and the order of a reply: asking
 * first when another agent replied meanwhile, the text, then the tray's files in the tray's order
 * (docs/inbox-api.md §11 "Attachments"). The crypto is the worker's own API, run in this process.
 */
import 'fake-indexeddb/auto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Customer } from '$test-support/customer';
import { ADMIN, useStack } from '$test-support/integration';
import { PageNetwork } from '$test-support/page-network';
import { nodeChunkWorkerPool } from '$test-support/node-chunk-workers';
import { customerWriting, replyOfTeamMember, signInWithKeyInRoster, storedMessage } from '$test-support/page-agent';
import { createWorkerApi } from '../crypto-worker/api';
import { MAX_ATTACHMENT_SIZE } from '../crypto/attachment-meta';
import { getConversation, listStoredMessages } from './api';
import { MessageAuthors } from './message-authors';
import { ThreadStore, type ThreadCrypto } from './thread.svelte';

// Real processes and a real simulator on a shared machine: waits are generous, none is a timing assertion.
vi.setConfig({ testTimeout: 120_000 });

const HISTORY = 120;
const SEND = /^\/api\/v1\/messages$/;

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
	const agent = await signInWithKeyInRoster(harness, worker);
	({ accountId } = agent);
	agentKeyHandle = agent.key.handle;
	customer = await customerWriting(
		harness,
		Array.from({ length: HISTORY }, (_, n) => `message ${n + 1}`)
	);
}, 300_000);

afterAll(() => {
	vi.unstubAllGlobals();
	chunkWorkers?.terminate();
});

const texts = (thread: ThreadStore) => thread.messages.map((message) => message.text);
const numbered = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `message ${from + i}`);
const file = (name: string, type: string, text = name) => new File([text], name, { type });
const sentTexts = async () =>
	(await customer.messages())
		.filter((message: { senderType: string }) => message.senderType === 'company')
		.map((message: { text?: string; meta?: { name: string; caption?: string } }) => message.meta?.name ?? message.text);

describe('ThreadStore: the history, paged and kept up live (docs/inbox-api.md §6)', () => {
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

	it('reveals a message far back with the largest pages, without waiting for the senders to be named', async () => {
		const [first] = (await listStoredMessages(customer.conversationId, { afterSeq: 0, limit: 1 })).data;
		// the newest page holds a reply of the team, whose sender the thread looks up; a lookup that never
		// answers: the jump must not wait for it
		await replyOfTeamMember(harness, await harness.login(ADMIN), customer.conversationId, 'A word from the team.');
		const silentAuthors = { lookUp: () => new Promise<never>(() => undefined) } as unknown as MessageAuthors;
		const thread = new ThreadStore(await getConversation(customer.conversationId), {
			crypto,
			agentKeyHandle,
			accountId,
			authors: silentAuthors,
			onPreview: () => undefined,
			onRead: () => undefined
		});
		const olderPages = network.sent('GET', /\/messages\?.*before=/).length;
		void thread.open();
		expect(await thread.reveal(first.messageId)).toBe(true);
		expect(texts(thread).slice(0, 2)).toEqual(['message 1', 'message 2']);
		const pages = network.sent('GET', /\/messages\?.*before=/).slice(olderPages);
		expect(pages.map((request) => new URL(request.path, 'http://page').searchParams.get('limit'))).toEqual(['200']);
		expect(await thread.reveal('msg_not_in_this_conversation')).toBe(false);
		thread.dispose();
	});

	it('adds the next live message at once, and fetches what it missed when `seq` jumps', async () => {
		const thread = await openThread();
		const next = await storedMessage(customer, 'the next one');
		const afterCalls = () => network.sent('GET', /\/messages\?.*after=/).length;
		const catchUps = afterCalls();
		await thread.receive(next);
		expect(texts(thread).at(-1)).toBe('the next one');
		expect(afterCalls()).toBe(catchUps);

		// two messages the live stream never delivered, then a third
		await storedMessage(customer, 'missed 1');
		await storedMessage(customer, 'missed 2');
		const third = await storedMessage(customer, 'after the gap');
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
});

describe('ThreadStore: a reply whose answer was lost (contract 4.2, 5.1)', () => {
	it('resends a reply whose answer was lost with the same envelope and key: the customer gets it once', async () => {
		const thread = await openThread();
		network.loseNextAnswer('POST', /^\/api\/v1\/messages$/);
		await thread.sendReply('Your lamp ships today.');
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
		await thread.sendReply('Back in a minute.');
		await expect.poll(() => thread.messages.at(-1)?.state, { timeout: 10_000 }).toBe('queued');
		// the page now knows the server did not answer: the next reply waits at once, untried
		await thread.sendReply('Ignore this.');
		await expect.poll(() => thread.messages.at(-1)?.state, { timeout: 10_000 }).toBe('queued');
		expect(network.sent('POST', /^\/api\/v1\/messages$/).length).toBe(earlier + 1);
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
		expect(attempts).toHaveLength(2);
		expect(attempts[1]).toBe(attempts[0]);
		const atCustomer = (await customer.messages()).map((message: { text?: string }) => message.text);
		expect(atCustomer.filter((text: string | undefined) => text === 'Back in a minute.')).toHaveLength(1);
		expect(atCustomer).not.toContain('Ignore this.');
		expect(thread.messages.some((message) => message.text === 'Ignore this.')).toBe(false);
		thread.dispose();
	});
});

describe('ThreadStore: the tray and the order of a reply (docs/inbox-api.md §11 "Attachments")', () => {
	it('keeps files in the tray until a reply, says which it refused, and lets their thumbnails go', async () => {
		const thread = await openThread();
		const revoked = vi.spyOn(URL, 'revokeObjectURL');
		const huge = { name: 'huge.bin', type: '', size: MAX_ATTACHMENT_SIZE + 1 } as File;
		thread.stage([file('photo.png', 'image/png'), file('notes.txt', 'text/plain'), huge]);
		expect(thread.staged.map((item) => [item.file.name, item.preview?.startsWith('blob:') ?? null])).toEqual([
			['photo.png', true],
			['notes.txt', null]
		]);
		expect(thread.trayError).toMatch(/^huge\.bin: Files can be at most 25 MiB/);
		const [photo, notes] = thread.staged;
		thread.caption(notes.id, 'read this first');
		thread.unstage(photo.id);
		expect(thread.staged.map((item) => [item.file.name, item.caption])).toEqual([['notes.txt', 'read this first']]);
		expect(revoked.mock.calls).toEqual([[photo.preview]]);
		thread.stage([file('another.png', 'image/png')]);
		expect(thread.trayError).toBeNull();
		const another = thread.staged[1];
		thread.dispose();
		expect([thread.staged, revoked.mock.calls]).toEqual([[], [[photo.preview], [another.preview]]]);
		revoked.mockRestore();
	});

	it('sends nothing of a reply whose text is refused: its files stay in the tray', async () => {
		const thread = await openThread();
		const uploads = network.sent('POST', /\/attachments$/).length;
		thread.stage([file('kept.txt', 'text/plain')]);
		await expect(thread.sendReply('x'.repeat(65_537))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
		expect([thread.staged.map((item) => item.file.name), network.sent('POST', /\/attachments$/).length]).toEqual([['kept.txt'], uploads]);
		thread.dispose();
	});

	it('sends a reply in its order: the text, then each file of the tray after the one before it, whatever finishes first', async () => {
		const thread = await openThread();
		const sends = network.sent('POST', SEND).length;
		thread.stage([file('first.txt', 'text/plain'), file('second.png', 'image/png'), file('third.txt', 'text/plain')]);
		thread.caption(thread.staged[1].id, 'The colour we have in stock');
		// the first file's upload waits, so the second is ready before it
		const firstUpload = network.holdNextAnswer('POST', /\/attachments$/);
		expect(await thread.sendReply('Here are the files.')).toBe(true);
		expect(thread.staged).toEqual([]);
		const local = thread.messages.filter((message) => message.messageId === null);
		expect(local.map((message) => message.attachment?.name ?? message.text)).toEqual([
			'Here are the files.',
			'first.txt',
			'second.png',
			'third.txt'
		]);
		const bubble = (name: string) => thread.messages.find((message) => message.attachment?.name === name);
		await firstUpload.arrived;
		await expect.poll(() => bubble('second.png')?.clientMessageId, { timeout: 30_000 }).toMatch(/\S/);
		expect(network.sent('POST', SEND)).toHaveLength(sends + 1); // the text's only: the second file waits for the first
		firstUpload.release();
		await expect
			.poll(() => ['first.txt', 'second.png', 'third.txt'].map((name) => bubble(name)?.state), { timeout: 60_000 })
			.toEqual(['sent', 'sent', 'sent']);
		await expect
			.poll(async () => (await sentTexts()).slice(-4), { timeout: 15_000 })
			.toEqual(['Here are the files.', 'first.txt', 'second.png', 'third.txt']);
		const atCustomer = await customer.messages();
		expect(atCustomer.find((message: { meta?: { name: string } }) => message.meta?.name === 'second.png')?.meta?.caption).toBe(
			'The colour we have in stock'
		);
		thread.dispose();
	});
});

describe('ThreadStore: another agent replied meanwhile', () => {
	it('asks first when another agent replied since the thread opened: Cancel keeps the reply, Send anyway sends it', async () => {
		const thread = await openThread();
		await replyOfTeamMember(harness, await harness.login(ADMIN), customer.conversationId, 'Grace is on it.');
		await thread.catchUp();
		const sends = network.sent('POST', SEND).length;
		const cancelled = thread.sendReply('I can help too.');
		expect(thread.collision).toBe('Grace Admin');
		thread.answerCollision(false);
		expect(await cancelled).toBe(false);
		expect([thread.collision, network.sent('POST', SEND).length]).toEqual([null, sends]);

		const confirmed = thread.sendReply('I can help too.');
		expect(thread.collision).toBe('Grace Admin');
		thread.answerCollision(true);
		expect(await confirmed).toBe(true);
		await expect.poll(() => thread.messages.at(-1)?.state, { timeout: 10_000 }).toBe('sent');
		// answered once: the next reply goes without asking
		const next = thread.sendReply('One more thing.');
		expect(thread.collision).toBeNull();
		expect(await next).toBe(true);
		await expect
			.poll(async () => (await sentTexts()).slice(-3), { timeout: 15_000 })
			.toEqual(['Grace is on it.', 'I can help too.', 'One more thing.']);

		// a reply waiting for the answer when the thread closes is not sent
		await replyOfTeamMember(harness, await harness.login(ADMIN), customer.conversationId, 'Grace again.');
		await thread.catchUp();
		const waiting = thread.sendReply('Never sent.');
		expect(thread.collision).toBe('Grace Admin');
		thread.dispose();
		expect([await waiting, thread.collision]).toEqual([false, null]);
	});
});
