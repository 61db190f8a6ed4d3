/**
 * The process's end of the live log (docs/inbox-api.md §7): it LISTENs for the ids that any process
 * announces with NOTIFY, reads the new events once, keeps the recent ones in memory, and wakes every
 * stream of this process. Streams that fall behind the memory read from the database.
 */
import type { Database } from '../db/database';
import {
	ACCOUNT_CHANGED_CHANNEL,
	LIVE_CHANNEL,
	newestLiveEventId,
	liveEventsAfter,
	SESSION_ENDED_CHANNEL,
	type LiveEvent
} from '../db/live-events';
import { coalesce } from '../coalesce';
import { errorText, type Logger } from '../log';
import type { Account } from '../db/accounts';
import { EventFacts, LIVE_MEMORY_MS } from './event-facts';
import { SharedAnswers, SharedBatches, viewerKey } from './shared-answers';

/**
 * The latest events kept for the streams: at most this many, about 10 s at a thousand messages a second
 * (each is two events) and some 60 MB, and none read longer than `LIVE_MEMORY_MS` ago, so at a quiet pace
 * memory holds a minute of events instead of filling up over hours. A stream that fell behind by less
 * catches up without the database. Trimmed once a quarter more than is kept is held, so the copy is not
 * made at every read.
 */
const KEEP_IN_MEMORY = 20_000;
const PAGE = 500;
/**
 * The least time between two reads that wake the streams: under a steady flow of events each stream is
 * woken at most this often, with all that arrived meanwhile (at a thousand messages a second, some forty
 * events per wake instead of one), so its work per wake is shared by more events. A first event after a
 * quiet spell is read at once.
 */
const READ_SPACING_MS = 50;
/** Streams woken in one turn of the event loop. */
const WAKE_GROUP = 100;

export interface LiveSubscriber {
	/** The session whose stream this is (a SHA-256 of its token), and its account. */
	sessionTokenHash: string;
	accountId: string;
	/** The account as the stream shows events to it now. */
	account(): Account;
	/** The account changed (its key): read it again before showing more. */
	accountChanged(): void;
	/** New events exist beyond what the subscriber sent. */
	wake(): void;
	/** End the stream: its session ended, or the server stops. */
	end(reason: 'session' | 'shutdown'): void;
	/** Whether this process reaches the service changed: tell the page now (not a logged event). */
	serviceReachability(reachable: boolean): void;
}

export class LiveHub {
	/** What each event shows each account, worked out once for all of its streams. */
	readonly answers = new SharedAnswers();
	/** What a run of events shows each account, rendered once for all of its streams at that place. */
	readonly batches = new SharedBatches();
	/** What conversation events show every account of this process's streams, asked once for all of them. */
	readonly facts: EventFacts;
	private recent: LiveEvent[] = [];
	/** The newest id after each read that found events, and when (the clock's ms), oldest first. */
	private readMarks: { id: number; at: number }[] = [];
	private newest = 0;
	private readonly subscribers = new Set<LiveSubscriber>();
	private readonly unlisten: (() => Promise<void>)[] = [];
	private readonly reader = coalesce(() => this.readNew());
	/** Reads of events older than memory holds, under way, by `afterId|limit` (olderEvents). */
	private readonly olderReads = new Map<string, Promise<LiveEvent[]>>();
	private poll: ReturnType<typeof setInterval> | undefined;
	private stopping: Promise<void> | undefined;

	/** `clock` tells how long ago events were read (monotonic ms). */
	constructor(
		private readonly db: Database,
		private readonly log: Logger,
		private readonly clock: () => number = () => performance.now()
	) {
		this.facts = new EventFacts(db, clock);
	}

	async start(): Promise<void> {
		this.newest = await newestLiveEventId(this.db);
		this.unlisten.push(await this.db.listen(LIVE_CHANNEL, (payload) => this.announced(payload)));
		this.unlisten.push(
			await this.db.listen(SESSION_ENDED_CHANNEL, (tokenHash) => {
				for (const subscriber of this.subscribers) if (subscriber.sessionTokenHash === tokenHash) subscriber.end('session');
			})
		);
		this.unlisten.push(
			await this.db.listen(ACCOUNT_CHANGED_CHANNEL, (accountId) => {
				for (const subscriber of this.subscribers) if (subscriber.accountId === accountId) subscriber.accountChanged();
			})
		);
		// A safety net for a notification lost with a connection: look every few seconds anyway.
		this.poll = setInterval(() => this.pull(), 5_000);
		this.poll.unref?.();
	}

	/** The live streams open on this process (docs/operations.md "Metrics"). */
	get streamCount(): number {
		return this.subscribers.size;
	}

	/** The accounts of the streams open on this process, each once (as its streams show events to it). */
	accounts(): Account[] {
		const accounts = new Map<string, Account>();
		for (const subscriber of this.subscribers) {
			const account = subscriber.account();
			accounts.set(viewerKey(account), account);
		}
		return [...accounts.values()];
	}

	/** The newest id this process has read. */
	get newestId(): number {
		return this.newest;
	}

	/** Whether this process reaches the service (upstream/client.ts); new streams say it in their `ready`. */
	serviceReachable = true;

	/** Tells every stream of this process that the service stopped answering or answers again. */
	announceServiceReachability(reachable: boolean): void {
		this.serviceReachable = reachable;
		for (const subscriber of this.subscribers) subscriber.serviceReachability(reachable);
	}

	subscribe(subscriber: LiveSubscriber): () => void {
		// A stream opened while the process stops is told at once to reconnect elsewhere, as the open ones were.
		if (this.stopping) {
			subscriber.end('shutdown');
			return () => {};
		}
		this.subscribers.add(subscriber);
		return () => this.subscribers.delete(subscriber);
	}

	/** Reads what is new, then wakes every subscriber. Calls while a read runs make it read once more. */
	pull(): void {
		this.reader.trigger();
	}

	/**
	 * A NOTIFY carries the newest id: with nobody listening on this process it is only noted (streams that
	 * open later read from the database); otherwise the new events are read once for all streams.
	 */
	private announced(payload: string | null): void {
		const id = Number(payload);
		if (this.subscribers.size === 0 && Number.isSafeInteger(id) && id > 0) {
			if (id > this.newest) {
				this.newest = id;
				this.recent = [];
				this.readMarks = [];
			}
			return;
		}
		this.pull();
	}

	private async readNew(): Promise<void> {
		try {
			const before = this.newest;
			for (;;) {
				const page = await liveEventsAfter(this.db, this.newest, PAGE);
				if (page.length === 0) break;
				this.recent.push(...page);
				this.newest = page[page.length - 1].id;
				if (page.length < PAGE) break;
			}
			if (this.newest > before) this.readMarks.push({ id: this.newest, at: this.clock() });
			this.trimRecent();
		} catch (error) {
			this.log.warn('live events could not be read', { reason: errorText(error) });
		}
		// a thousand streams woken at once would hold the process for one long turn: the requests that came
		// meanwhile (webhooks waiting for their acknowledgement) are served between groups
		let woken = 0;
		for (const subscriber of [...this.subscribers]) {
			subscriber.wake();
			if (++woken % WAKE_GROUP === 0) await new Promise((resolve) => setImmediate(resolve));
		}
		if (this.subscribers.size > 0 && !this.stopping) await new Promise((resolve) => setTimeout(resolve, READ_SPACING_MS));
	}

	/** Drops the events past `KEEP_IN_MEMORY`, and those read over `LIVE_MEMORY_MS` ago, once a quarter more is held. */
	private trimRecent(): void {
		const readBefore = this.clock() - LIVE_MEMORY_MS;
		let aged = 0;
		while (aged < this.readMarks.length && this.readMarks[aged].at <= readBefore) aged++;
		const agedId = aged > 0 ? this.readMarks[aged - 1].id : 0;
		const kept = Math.min(KEEP_IN_MEMORY, this.recent.length - this.firstRecentAfter(agedId));
		if (this.recent.length <= kept * 1.25) return;
		this.recent = this.recent.slice(this.recent.length - kept);
		const oldestKept = this.recent[0]?.id ?? this.newest + 1;
		this.readMarks = this.readMarks.filter((mark) => mark.id >= oldestKept);
	}

	/** Events after `afterId`, up to what this process has read, from memory when it still holds them. */
	async eventsAfter(afterId: number, limit: number): Promise<LiveEvent[]> {
		if (afterId >= this.newest) return [];
		const first = this.recent[0];
		if (first && first.id <= afterId + 1) {
			const start = this.firstRecentAfter(afterId);
			return this.recent.slice(start, start + limit);
		}
		return (await this.olderEvents(afterId, limit)).filter((event) => event.id <= this.newest);
	}

	/**
	 * Events older than memory holds, read once for all the streams that ask for the same page at once:
	 * streams that fell behind together ask for the same pages, which would otherwise be read per stream.
	 */
	private olderEvents(afterId: number, limit: number): Promise<LiveEvent[]> {
		const key = `${afterId}|${limit}`;
		let read = this.olderReads.get(key);
		if (!read) {
			read = liveEventsAfter(this.db, afterId, limit).finally(() => this.olderReads.delete(key));
			this.olderReads.set(key, read);
		}
		return read;
	}

	/** The position of the first recent event after `afterId` (ids ascend): each stream asks on every wake. */
	private firstRecentAfter(afterId: number): number {
		let low = 0;
		let high = this.recent.length;
		while (low < high) {
			const middle = (low + high) >>> 1;
			if (this.recent[middle].id > afterId) high = middle;
			else low = middle + 1;
		}
		return low;
	}

	stop(): Promise<void> {
		this.stopping ??= (async () => {
			if (this.poll) clearInterval(this.poll);
			for (const subscriber of this.subscribers) subscriber.end('shutdown');
			this.subscribers.clear();
			await Promise.all(this.unlisten.map((stop) => stop()));
			await this.reader.idle();
		})();
		return this.stopping;
	}
}
