/**
 * One `GET /api/events` stream (docs/inbox-api.md §7): replays what followed `Last-Event-ID`, then sends
 * each new event as the connected account sees it (its own wraps and unread count), a keep-alive comment
 * every 15 seconds, and ends when the session ends or the server stops.
 */
import type { Account } from '../db/accounts';
import { getConversationView } from '../db/conversations';
import type { Database } from '../db/database';
import { liveEventBounds, type LiveEvent } from '../db/live-events';
import { resolveSessionByHash } from '../auth/sessions';
import { coalesce } from '../coalesce';
import { errorText, type Logger } from '../log';
import type { LiveHub } from './hub';

const KEEP_ALIVE_MS = 15_000;
const BATCH = 200;

export interface StreamOptions {
	db: Database;
	hub: LiveHub;
	log: Logger;
	account: Account;
	sessionTokenHash: string;
	/** The `Last-Event-ID` header or `lastEventId` query, when reconnecting. */
	lastEventId: string | null;
	now: () => number;
}

function frame(event: string, data: unknown, id?: number): string {
	return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The text/event-stream response of one session. */
export function openLiveStream(options: StreamOptions): Response {
	const encoder = new TextEncoder();
	let account = options.account;
	let lastSent = 0;
	let closed = false;
	let unsubscribe = () => {};
	let keepAlive: ReturnType<typeof setInterval> | undefined;
	let controller!: ReadableStreamDefaultController<Uint8Array>;

	const send = (text: string) => {
		if (closed) return;
		try {
			controller.enqueue(encoder.encode(text));
		} catch {
			close();
		}
	};
	const close = () => {
		if (closed) return;
		closed = true;
		unsubscribe();
		if (keepAlive) clearInterval(keepAlive);
		try {
			controller.close();
		} catch {
			// already closed by the client
		}
	};

	/** What the account is told about one event; conversation events carry its own view. */
	const render = async (event: LiveEvent): Promise<string | null> => {
		if (event.type === 'conversation.started' || event.type === 'conversation.changed') {
			const conversation = await getConversationView(options.db, account, String(event.payload.conversationId));
			return conversation ? frame(event.type, { conversation }, event.id) : null;
		}
		if (event.type === 'grant.progress') return renderGrant(event);
		return frame(event.type, event.payload, event.id);
	};

	/**
	 * Grant progress (docs/inbox-api.md §12) is for admins; an agent whose key a finished job served is
	 * told to reload its lists, where the earlier conversations now carry its wraps.
	 */
	const renderGrant = (event: LiveEvent): string | null => {
		const job = event.payload as { state?: string; agentKeyIds?: string[] };
		const served = job.state !== 'running' && account.agentKeyId !== null && (job.agentKeyIds ?? []).includes(account.agentKeyId);
		const frames = [
			account.role === 'admin' ? frame(event.type, event.payload, event.id) : '',
			served ? frame('resync', { reason: 'conversation keys were granted to you' }, event.id) : ''
		].join('');
		return frames || null;
	};

	const sendNew = async () => {
		try {
			for (;;) {
				const events = await options.hub.eventsAfter(lastSent, BATCH);
				if (events.length === 0 || closed) break;
				for (const [index, event] of events.entries()) {
					// A later change of the same conversation in this batch says the same, newer.
					const superseded =
						event.type === 'conversation.changed' &&
						events
							.slice(index + 1)
							.some((later) => later.conversationId === event.conversationId && later.type.startsWith('conversation.'));
					const text = superseded ? null : await render(event);
					if (text) send(text);
					lastSent = event.id;
				}
			}
		} catch (error) {
			options.log.warn('live stream could not send', { account: account.accountId, reason: errorText(error) });
		}
	};
	const sender = coalesce(sendNew);
	const pump = () => {
		if (!closed) sender.trigger();
	};

	const endSession = () => {
		send(frame('session.ended', { reason: 'the session ended; log in again' }));
		close();
	};

	const checkSession = async () => {
		try {
			const session = await resolveSessionByHash(options.db, options.sessionTokenHash, new Date(options.now()));
			if (!session) {
				endSession();
				return;
			}
			account = session.account;
		} catch {
			// the database hiccups: keep the stream, check again next time
		}
	};

	const stream = new ReadableStream<Uint8Array>({
		async start(streamController) {
			controller = streamController;
			const bounds = await liveEventBounds(options.db).catch(() => ({ oldest: 0, newest: options.hub.newestId }));
			const newest = Math.max(bounds.newest, options.hub.newestId);
			const requested = options.lastEventId !== null && /^[0-9]{1,15}$/.test(options.lastEventId) ? Number(options.lastEventId) : null;
			send('retry: 3000\n\n');
			if (requested === null) {
				lastSent = newest;
			} else if (requested > newest || (bounds.oldest > 0 && requested < bounds.oldest - 1)) {
				lastSent = newest;
				send(frame('resync', { reason: requested > newest ? 'unknown event id' : 'the events after that id are no longer kept' }, newest));
			} else {
				lastSent = requested;
			}
			unsubscribe = options.hub.subscribe({
				sessionTokenHash: options.sessionTokenHash,
				wake: pump,
				end: (reason) => (reason === 'session' ? endSession() : close())
			});
			pump();
			await sender.idle();
			send(frame('ready', { lastEventId: lastSent }, lastSent));
			keepAlive = setInterval(() => {
				send(': keep-alive\n\n');
				void checkSession();
			}, KEEP_ALIVE_MS);
			keepAlive.unref?.();
		},
		cancel() {
			closed = true;
			unsubscribe();
			if (keepAlive) clearInterval(keepAlive);
		}
	});

	return new Response(stream, {
		headers: {
			'content-type': 'text/event-stream; charset=utf-8',
			'cache-control': 'no-store',
			'x-accel-buffering': 'no'
		}
	});
}
