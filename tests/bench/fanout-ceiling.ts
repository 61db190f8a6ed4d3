/**
 * The fan-out's ceiling for `npm run bench:server` (docs/operations.md "Fan-out"): a bare node:http
 * server that does the least a fan-out of these webhooks must. It verifies each webhook's signature
 * (contract 5.2 steps 1–5), answers 200 and, at most every 50 ms as the inbox's hub reads, writes what
 * arrived meanwhile to every open `GET /api/events` stream with `res.write`, a hundred streams per turn
 * of the event loop as the inbox's hub wakes them: one `message.created` frame
 * per message and one `conversation.changed` frame per conversation of the batch, of the inbox's shapes
 * and sizes, encoded once for all the streams. No database, no sessions, no web streams: what is left is
 * the sockets' writes, which bound any server on this machine.
 * Run as its own process: `tsx tests/bench/fanout-ceiling.ts <port> <secret>`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { ConversationView } from '../../src/lib/client/types';
import { initCrypto } from '../../src/lib/crypto/sodium';
import { conversationView } from '../support/conversation-view';
import { answerWebhook } from './webhook-answer';

const READ_SPACING_MS = 50;
const WAKE_GROUP = 100;
const [port, secret] = process.argv.slice(2);
await initCrypto();

const streams = new Set<ServerResponse>();
let pending: { conversationId: string; message: Record<string, unknown> }[] = [];
let nextId = 0;
/** The next flush, or the one writing: events that arrive meanwhile go out with the next. */
let flushing: ReturnType<typeof setTimeout> | 'writing' | undefined;
const sealedWrap = randomBytes(112).toString('base64url');

/** A conversation's view as the inbox sends it to an agent who may read it (db/conversations.ts). */
function view(conversationId: string, at: string, unreadCount: number): ConversationView {
	return conversationView(conversationId, at, {
		createdAt: at,
		startedAt: at,
		firstCustomerAt: at,
		unreadCount,
		agentWraps: [{ wrap: { sealed: sealedWrap, keyVersion: 1 }, agentKeyId: 'agk_ceilingceilingce', rosterVersion: 1 }]
	});
}

const unread = new Map<string, number>();

function flush(): void {
	flushing = undefined;
	if (pending.length === 0) return;
	flushing = 'writing';
	const texts: string[] = [];
	const changed = new Map<string, string>();
	for (const { conversationId, message } of pending) {
		texts.push(
			`id: ${++nextId}\nevent: message.created\ndata: ${JSON.stringify({ message: { ...message, attachment: null }, conversationId })}\n\n`
		);
		unread.set(conversationId, (unread.get(conversationId) ?? 0) + 1);
		changed.set(conversationId, String(message.createdAt));
	}
	for (const [conversationId, at] of changed)
		texts.push(
			`id: ${++nextId}\nevent: conversation.changed\ndata: ${JSON.stringify({ conversation: view(conversationId, at, unread.get(conversationId)!) })}\n\n`
		);
	pending = [];
	const bytes = Buffer.from(texts.join(''));
	void writeToAll(bytes).then(() => (flushing = setTimeout(flush, READ_SPACING_MS)));
}

/** Writes `bytes` to every stream, a group at a time as the hub wakes them, so webhooks are answered between groups. */
async function writeToAll(bytes: Buffer): Promise<void> {
	let written = 0;
	for (const stream of [...streams]) {
		stream.write(bytes);
		if (++written % WAKE_GROUP === 0) await new Promise((resolve) => setImmediate(resolve));
	}
}

const server = createServer((request, response) => {
	if (request.method === 'GET' && request.url === '/api/events') {
		response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
		response.write('retry: 3000\n\nevent: ready\ndata: {}\n\n');
		streams.add(response);
		response.on('close', () => streams.delete(response));
		return;
	}
	answerWebhook(request, response, secret, (body) => {
		const event = JSON.parse(body.toString()) as { createdAt: string; data: Record<string, unknown> & { conversationId: string } };
		pending.push({ conversationId: event.data.conversationId, message: { ...event.data, createdAt: event.createdAt } });
		// a first event after a quiet spell goes out at once, as the hub reads it at once
		flushing ??= setTimeout(flush, 0);
	});
});
server.keepAliveTimeout = 60_000;
server.listen(Number(port), '127.0.0.1', () => console.log(`fan-out ceiling listening on ${port}`));
