/**
 * One `GET /api/events` stream (docs/inbox-api.md §7): replays what followed `Last-Event-ID`, then sends
 * each new event as the connected account sees it (its own wraps and unread count), a `heartbeat` event
 * every 15 seconds (the page's proof that the stream is alive; it also keeps proxies from closing it),
 * and ends when the session ends or the server stops. An account is sent only what it may read (§1
 * "Access"): the events of a conversation (messages, notes, presence, read receipts) only when it has
 * access to it, a mention (and its read mark) only to the account mentioned, conversation changes as its own view (bare for one without access), the team's labels
 * only when it is an agent of the latest roster.
 */
import type { Account } from '../db/accounts';
import { hasConversationAccess, isRosterAgent } from '../conversations/access';
import { recordOnline } from '../conversations/availability';
import { getConversationView, type ConversationViews } from '../db/conversations';
import type { Database } from '../db/database';
import { liveEventBounds, type LiveEvent } from '../db/live-events';
import { resolveSessionByHash } from '../auth/sessions';
import { coalesce } from '../coalesce';
import { errorText, type Logger } from '../log';
import type { UsageCounter } from '../usage/caps';
import type { LiveHub } from './hub';
import { liveAnswers } from '../metrics';
import { isViewEvent } from './event-facts';
import { viewerKey, type RenderedBatch } from './shared-answers';

const KEEP_ALIVE_MS = 15_000;
const BATCH = 200;
/** How soon a client reconnects when this process stops (the usual retry is 3 s). */
const RECONNECT_AFTER_SHUTDOWN_MS = 250;

export interface StreamOptions {
	/** Where the stream is counted against the caps (usage/caps.ts), under `streamId`. */
	usage: UsageCounter;
	streamId: string;
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

/**
 * The frame of an event every account that may read it is sent alike (a message, a note, presence),
 * written once for all the streams of the process (the hub keeps one object per recent event).
 */
const sharedFrames = new WeakMap<LiveEvent, string>();

function sharedFrame(event: LiveEvent): string {
	let text = sharedFrames.get(event);
	if (text === undefined) {
		text = frame(event.type, event.payload, event.id);
		sharedFrames.set(event, text);
	}
	return text;
}

/** Events every account is shown as they are, or whose frame says for itself whom it is for. */
function decidesForItself(event: LiveEvent): boolean {
	return event.type.startsWith('conversation.') || event.type === 'grant.progress';
}

/** The text/event-stream response of one session. */
export function openLiveStream(options: StreamOptions): Response {
	return new LiveStream(options).response();
}

/**
 * One connected session: what it was last sent, whether it is still open, and the account as it was
 * when the session was last checked (its role and key decide what each event shows).
 */
class LiveStream {
	readonly #options: StreamOptions;
	readonly #encoder = new TextEncoder();
	readonly #sender = coalesce(() => this.#sendNew());
	#account: Account;
	#lastSent = 0;
	#closed = false;
	#unsubscribe = () => {};
	#keepAlive: ReturnType<typeof setInterval> | undefined;
	/** The read of the account after it changed, until it is done. */
	#accountRead: Promise<void> = Promise.resolve();
	#controller!: ReadableStreamDefaultController<Uint8Array>;

	constructor(options: StreamOptions) {
		this.#options = options;
		this.#account = options.account;
	}

	response(): Response {
		const stream = new ReadableStream<Uint8Array>({
			start: (controller) => this.#start(controller),
			cancel: () => this.#stop()
		});
		return new Response(stream, {
			headers: {
				'content-type': 'text/event-stream; charset=utf-8',
				'cache-control': 'no-store',
				'x-accel-buffering': 'no'
			}
		});
	}

	/** Replays from `Last-Event-ID` (or says to resync), subscribes, then says `ready`. */
	async #start(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
		const { db, hub, lastEventId } = this.#options;
		this.#controller = controller;
		const bounds = await liveEventBounds(db).catch(() => ({ oldest: 0, newest: hub.newestId }));
		const newest = Math.max(bounds.newest, hub.newestId);
		const requested = lastEventId !== null && /^[0-9]{1,15}$/.test(lastEventId) ? Number(lastEventId) : null;
		this.#send('retry: 3000\n\n');
		if (requested === null) {
			this.#lastSent = newest;
		} else if (requested > newest || (bounds.oldest > 0 && requested < bounds.oldest - 1)) {
			this.#lastSent = newest;
			this.#send(
				frame('resync', { reason: requested > newest ? 'unknown event id' : 'the events after that id are no longer kept' }, newest)
			);
		} else {
			this.#lastSent = requested;
		}
		this.#unsubscribe = hub.subscribe({
			sessionTokenHash: this.#options.sessionTokenHash,
			accountId: this.#account.accountId,
			account: () => this.#account,
			accountChanged: () => {
				this.#accountRead = this.#checkSession();
			},
			wake: () => this.#pump(),
			end: (reason) => (reason === 'session' ? this.#endSession() : this.#endForShutdown()),
			serviceReachability: (reachable) => this.#send(frame('service.state', { reachable }))
		});
		this.#pump();
		await this.#sender.idle();
		// ended already: the process stops, or the session ended meanwhile
		if (this.#closed) return;
		this.#send(
			frame(
				'ready',
				{ lastEventId: this.#lastSent, heartbeatSeconds: KEEP_ALIVE_MS / 1000, serviceReachable: hub.serviceReachable },
				this.#lastSent
			)
		);
		this.#seenOnline();
		this.#keepAlive = setInterval(() => {
			this.#send(frame('heartbeat', {}));
			void this.#checkSession();
			void this.#options.usage.refreshStream(this.#options.streamId, new Date(this.#options.now())).catch(() => undefined);
			this.#seenOnline();
		}, KEEP_ALIVE_MS);
		this.#keepAlive.unref?.();
	}

	/** The account's time online runs on (conversations/availability.ts); a failure costs a heartbeat's worth of it. */
	#seenOnline(): void {
		void recordOnline(this.#options.db, this.#account.accountId, new Date(this.#options.now())).catch((error) =>
			this.#options.log.warn('time online not recorded', { account: this.#account.accountId, reason: errorText(error) })
		);
	}

	#send(text: string): void {
		this.#sendBytes(this.#encoder.encode(text));
	}

	/** Bytes other streams may be sent too: they are only read. */
	#sendBytes(bytes: Uint8Array): void {
		if (this.#closed) return;
		try {
			this.#controller.enqueue(bytes);
		} catch {
			this.#close();
		}
	}

	/** Stops sending; the client's own cancel comes here too, where the stream is already closed. */
	#stop(): void {
		if (!this.#closed) void this.#options.usage.closeStream(this.#options.streamId, new Date(this.#options.now())).catch(() => undefined);
		this.#closed = true;
		this.#unsubscribe();
		if (this.#keepAlive) clearInterval(this.#keepAlive);
	}

	#close(): void {
		if (this.#closed) return;
		this.#stop();
		try {
			this.#controller.close();
		} catch {
			// already closed by the client
		}
	}

	#pump(): void {
		if (!this.#closed) this.#sender.trigger();
	}

	async #sendNew(): Promise<void> {
		try {
			// events after a change of the account's key are shown as the account is now
			await this.#accountRead;
			const account = this.#account;
			const viewer = viewerKey(account);
			for (;;) {
				const events = await this.#options.hub.eventsAfter(this.#lastSent, BATCH);
				if (events.length === 0 || this.#closed) break;
				// one write per batch, the same bytes for every stream of the account at this place: a stream that
				// fell behind catches up in a few large writes, and the events are worked out once per account
				const key = `${viewer}|${events[0].id}|${events[events.length - 1].id}`;
				const batch = await this.#options.hub.batches.once(key, () => this.#renderBatch(events, account, viewer));
				if (batch.bytes) this.#sendBytes(batch.bytes);
				if (batch.lastId !== null) this.#lastSent = batch.lastId;
				// what was ready went out; the rest is tried again at the next wake
				if (batch.failure !== undefined) throw batch.failure;
			}
		} catch (error) {
			this.#options.log.warn('live stream could not send', { account: this.#account.accountId, reason: errorText(error) });
		}
	}

	/** The frames `account` is sent for `events`, encoded; those before a failure when one fails. */
	async #renderBatch(events: readonly LiveEvent[], account: Account, viewer: string): Promise<RenderedBatch> {
		const { hub } = this.#options;
		// A later change of the same conversation in this batch says the same, newer.
		const superseded = new Set<number>();
		const changedLater = new Set<string | null>();
		for (let index = events.length - 1; index >= 0; index--) {
			const event = events[index];
			if (event.type === 'conversation.changed' && changedLater.has(event.conversationId)) superseded.add(event.id);
			if (event.type.startsWith('conversation.')) changedLater.add(event.conversationId);
		}
		// the views and access of the batch's conversation events, asked once for every account of this process
		const facts = hub.facts.of(
			events.filter(
				(event) => !superseded.has(event.id) && event.conversationId !== null && (isViewEvent(event) || !decidesForItself(event))
			),
			() => [account, ...hub.accounts()]
		);
		const texts: string[] = [];
		let lastId: number | null = null;
		let failure: unknown;
		try {
			for (const event of events) {
				const known = facts.get(event.id);
				const views = known && (await known);
				const covered = views?.covers(account) ? views : undefined;
				if (covered) liveAnswers.inc({ outcome: 'shared' });
				const shown =
					!superseded.has(event.id) &&
					(decidesForItself(event) ||
						(covered && event.conversationId !== null
							? covered.mayRead(event.conversationId, account)
							: // what the account may read, asked once per event: a roster or a key that changed counts from the next event on
								await hub.answers.once(`read|${event.id}|${viewer}`, () => this.#mayRead(account, event.conversationId))));
				const text = shown ? await this.#render(event, account, viewer, covered) : null;
				if (text) texts.push(text);
				lastId = event.id;
			}
		} catch (error) {
			failure = error;
		}
		return { bytes: texts.length ? this.#encoder.encode(texts.join('')) : null, lastId, ...(failure === undefined ? {} : { failure }) };
	}

	/**
	 * Whether the account may see an event of this conversation: one with access to it; for the team's
	 * events (no conversation), an agent of the latest roster. Grant progress decides for itself.
	 */
	async #mayRead(account: Account, conversationId: string | null): Promise<boolean> {
		const { db } = this.#options;
		if (conversationId === null) return isRosterAgent(db, account);
		return hasConversationAccess(db, account, conversationId);
	}

	/** What the account is told about one event; conversation events carry its own view (from `views` when they cover it). */
	async #render(event: LiveEvent, account: Account, viewer: string, views: ConversationViews | undefined): Promise<string | null> {
		if (isViewEvent(event)) {
			const conversationId = String(event.payload.conversationId);
			const conversation = views
				? views.viewOf(conversationId, account)
				: await this.#options.hub.answers.once(`view|${event.id}|${viewer}`, () =>
						getConversationView(this.#options.db, account, conversationId)
					);
			return conversation ? frame(event.type, { conversation }, event.id) : null;
		}
		if (event.type === 'grant.progress') return this.#renderGrant(event, account);
		// a mention is for the account it names, and for no one else who can read the conversation
		if (event.type === 'mention.created' || event.type === 'mention.read')
			return event.payload.accountId === account.accountId ? sharedFrame(event) : null;
		return sharedFrame(event);
	}

	/**
	 * Grant progress (docs/inbox-api.md §12) is for admins; an agent whose key a finished job served is
	 * told to reload its lists, where the earlier conversations now carry its wraps.
	 */
	#renderGrant(event: LiveEvent, account: Account): string | null {
		const job = event.payload as { state?: string; agentKeyIds?: string[] };
		const served = job.state !== 'running' && account.agentKeyId !== null && (job.agentKeyIds ?? []).includes(account.agentKeyId);
		const frames = [
			account.role === 'admin' ? frame(event.type, event.payload, event.id) : '',
			served ? frame('resync', { reason: 'conversation keys were granted to you' }, event.id) : ''
		].join('');
		return frames || null;
	}

	/** This process stops: the client reconnects at once, through the load balancer to another one. */
	#endForShutdown(): void {
		this.#send(`retry: ${RECONNECT_AFTER_SHUTDOWN_MS}\n\n`);
		this.#send(frame('server.stopping', { reason: 'this server process is stopping; reconnect' }));
		this.#close();
	}

	#endSession(): void {
		this.#send(frame('session.ended', { reason: 'the session ended; log in again' }));
		this.#close();
	}

	async #checkSession(): Promise<void> {
		try {
			const session = await resolveSessionByHash(this.#options.db, this.#options.sessionTokenHash, new Date(this.#options.now()));
			if (!session) {
				this.#endSession();
				return;
			}
			const before = this.#account;
			this.#account = session.account;
			// what the account may read follows its key: views sent before (worked out without the new key, or
			// with the old one) are stale, so the page reads its lists again
			if (before.agentKeyId !== session.account.agentKeyId || before.agentPublicKey !== session.account.agentPublicKey) {
				this.#send(frame('resync', { reason: 'the agent key of this account changed' }, this.#lastSent));
			}
		} catch {
			// the database hiccups: keep the stream, check again next time
		}
	}
}
