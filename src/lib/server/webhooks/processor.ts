/**
 * Processing of the stored webhook queue (contract 5.2 step 7): leases due events in order and applies a
 * batch in one transaction together with marking it processed (at least once, idempotent); when one event
 * fails the batch is redone one event per transaction, so the others go through and the failure is set
 * aside (malformed) or retried with backoff (transient). The lease is short and renewed while a batch is
 * worked on; a stopping process gives back what it has not processed, and what a crashed one left behind
 * is picked up when its lease ends. Marking needs the lease's token, so a process that paused past its
 * lease and resumes re-applies nothing (its transaction rolls back). While webhooks keep arriving, processing takes at most about
 * half of the database's time, so acknowledgements stay fast and the queue drains afterwards. What is logged of
 * an event, its line once processed included, carries the id of the request that stored it (docs/operations.md "Logs").
 */
import { ContractError } from '../../errors';
import type { Database, Queryable } from '../db/database';
import { appendLiveEvents, type NewLiveEvent } from '../db/live-events';
import { DEFAULT_LEASE_MS, LeaseLostError, newLease, renewWhileWorking } from '../db/leases';
import {
	claimDueEvents,
	markEventFailed,
	markEventForRetry,
	markEventsProcessed,
	nextDueAt,
	releaseLease,
	renewLease,
	type StoredEvent
} from '../db/webhook-events';
import { processingFailures } from '../metrics';
import { errorText, type Logger } from '../log';
import { continuingRequest } from '../request-context';
import { applyEvents } from './handlers';
import { applyMessageBatch, messagesOf } from './message-batch';

/** Codes of events that are malformed in themselves: trying again cannot help. */
const PERMANENT = new Set(['INVALID_INPUT', 'INVALID_REQUEST', 'UNSUPPORTED_VERSION']);
const MAX_ATTEMPTS = 25;
const IDLE_POLL_MS = 1_000;
/** Events arrived this recently: the receiver is busy. */
const BUSY_WINDOW_MS = 250;
const BATCH = 100;
/** While webhooks arrive: a small batch holds the database briefly, so their inserts wait little. */
const BUSY_BATCH = 20;
/**
 * The largest batch while webhooks arrive. A batch costs about as much whatever its size, so at 1,000
 * webhooks a second batches of 20 fell behind (by seconds, and the live streams with them): each full
 * claim (a backlog) doubles the next, up to this; one that is not full goes back to `BUSY_BATCH`.
 * Larger ones (400 was tried) kept the receiver's inserts waiting behind them.
 */
const BACKLOG_BATCH = 60;

export interface ProcessorOptions {
	db: Database;
	now: () => number;
	log: Logger;
	wakeRewraps: () => void;
	/** A conversation started (the profiles written with its invitation can be stored). */
	conversationStarted?: () => void;
	/** A batch of events was applied: customers may have written to conversations nobody has yet. */
	customersWrote?: () => void;
	batchSize?: number;
	/** How long a claim holds without renewal (default DEFAULT_LEASE_MS); renewed every third of it while the batch is worked on. */
	leaseMs?: number;
}

export function retryDelayMs(attempts: number): number {
	return Math.min(5 * 60_000, 500 * 2 ** Math.min(attempts, 20));
}

export class WebhookProcessor {
	private running: Promise<void> | undefined;
	private stopped = false;
	private wakeUp: (() => void) | undefined;
	private woken = false;
	private lastStoredAt = 0;
	/** The next batch's size while the receiver is busy. */
	private busyBatch = BUSY_BATCH;

	constructor(private readonly options: ProcessorOptions) {}

	/** Something was stored: process it soon. */
	wake(): void {
		this.lastStoredAt = this.options.now();
		this.woken = true;
		this.wakeUp?.();
	}

	private get receiverBusy(): boolean {
		return this.options.now() - this.lastStoredAt < BUSY_WINDOW_MS;
	}

	start(): void {
		this.stopped = false;
		this.running ??= this.loop();
	}

	async stop(): Promise<void> {
		this.stopped = true;
		this.wakeUp?.();
		await this.running;
		this.running = undefined;
	}

	private async loop(): Promise<void> {
		while (!this.stopped) {
			let processed = 0;
			const started = performance.now();
			try {
				processed = await this.runOnce();
			} catch (error) {
				this.options.log.error('webhook processing paused', { reason: errorText(error) });
				await this.sleep(IDLE_POLL_MS);
				continue;
			}
			if (processed === 0) await this.sleep(await this.idleWait());
			// PGlite has one connection: leave it to the receiver for as long as the batch held it. PostgreSQL's
			// pool gives the receiver connections of its own, and a pause there only let the live events trail.
			else if (this.receiverBusy && this.options.db.kind === 'pglite') await this.pause(Math.max(2, performance.now() - started));
		}
	}

	private async idleWait(): Promise<number> {
		const due = await nextDueAt(this.options.db).catch(() => undefined);
		if (!due) return IDLE_POLL_MS;
		return Math.max(0, Math.min(IDLE_POLL_MS, due.getTime() - this.options.now()));
	}

	/** Waits `ms`, whatever wakes the processor meanwhile. */
	private pause(ms: number): Promise<void> {
		return new Promise((resolve) => setTimeout(resolve, ms));
	}

	private sleep(ms: number): Promise<void> {
		if (this.woken || this.stopped) {
			this.woken = false;
			return Promise.resolve();
		}
		return new Promise((resolve) => {
			const timer = setTimeout(done, ms);
			function done() {
				clearTimeout(timer);
				resolve();
			}
			this.wakeUp = () => {
				this.wakeUp = undefined;
				this.woken = false;
				done();
			};
		});
	}

	/** Processes one batch of due events; returns how many it took. */
	async runOnce(): Promise<number> {
		const { db, now, log } = this.options;
		const size = this.options.batchSize ?? (this.receiverBusy ? this.busyBatch : BATCH);
		// One process owns a PGlite database (its directory lock), so only PostgreSQL needs leases.
		const lease = db.kind === 'pglite' ? null : newLease(this.options.leaseMs ?? DEFAULT_LEASE_MS);
		const events = await claimDueEvents(db, size, lease, new Date(now()));
		this.busyBatch = events.length === size ? Math.min(BACKLOG_BATCH, size * 2) : BUSY_BATCH;
		if (events.length === 0) return 0;
		const seqs = events.map((event) => event.seq);
		const stopRenewing = lease
			? renewWhileWorking(lease, async () => (await renewLease(db, seqs, lease, new Date(now()))) > 0, {
					onError: (error) => log.warn('webhook lease not renewed', { reason: errorText(error) })
				})
			: () => {};
		try {
			if (this.stopped) return events.length;
			try {
				const messages = messagesOf(events, new Date(now()));
				if (messages) await applyMessageBatch(db, events, messages, new Date(now()));
				else await this.applyInOneTransaction(events);
				for (const event of events) this.processed(event);
			} catch (error) {
				if (error instanceof LeaseLostError) {
					log.warn('webhook events left to the process that holds them now', { reason: error.message });
					return events.length;
				}
				// One of them failed (or the database did): each on its own, so the failure stays with its event.
				for (const event of events) {
					if (this.stopped) break;
					if (!(await continuingRequest(event.requestId, () => this.applyAlone(event)))) break;
				}
			}
			return events.length;
		} finally {
			stopRenewing();
			this.options.customersWrote?.();
			// Stopping: what was claimed and not processed is given back for another process to take at once.
			if (lease && this.stopped) await releaseLease(db, seqs, lease.token).catch(() => undefined);
		}
	}

	private async applyInOneTransaction(events: StoredEvent[]): Promise<void> {
		const afterCommit: (() => void)[] = [];
		await this.options.db.transaction(async (tx) => {
			const now = new Date(this.options.now());
			const live: NewLiveEvent[] = [];
			await this.apply(tx, events, now, live, afterCommit);
			await appendLiveEvents(tx, live, now);
			await markEventsProcessed(
				tx,
				events.map((event) => event.seq),
				events[0].leaseToken,
				now
			);
		});
		for (const action of afterCommit) action();
	}

	/** Applies one event in its own transaction; false when its lease was lost, true otherwise (a failure is recorded). */
	private async applyAlone(event: StoredEvent): Promise<boolean> {
		const afterCommit: (() => void)[] = [];
		try {
			await this.options.db.transaction(async (tx) => {
				const now = new Date(this.options.now());
				const live: NewLiveEvent[] = [];
				await this.apply(tx, [event], now, live, afterCommit);
				await appendLiveEvents(tx, live, now);
				await markEventsProcessed(tx, [event.seq], event.leaseToken, now);
			});
		} catch (error) {
			if (error instanceof LeaseLostError) {
				this.options.log.warn('webhook event left to the process that holds it now', { event: event.eventId });
				return false;
			}
			processingFailures.inc();
			await this.failed(event, error).catch((markError) =>
				this.options.log.error('could not record a processing failure; the lease will expire', {
					event: event.eventId,
					reason: errorText(markError)
				})
			);
			return true;
		}
		for (const action of afterCommit) action();
		this.processed(event);
		return true;
	}

	/** The event's line, under the id of the request that stored it. */
	private processed(event: StoredEvent): void {
		continuingRequest(event.requestId, () =>
			this.options.log.info('webhook event processed', { event: event.eventId, type: event.eventType, attempts: event.processAttempts + 1 })
		);
	}

	private apply(tx: Queryable, events: StoredEvent[], now: Date, live: NewLiveEvent[], afterCommit: (() => void)[]): Promise<unknown> {
		return applyEvents(tx, events, {
			now,
			log: this.options.log,
			live: (type, conversationId, payload) => live.push({ type, conversationId, payload }),
			afterCommit: (action) => afterCommit.push(action),
			wakeRewraps: this.options.wakeRewraps,
			conversationStarted: this.options.conversationStarted ?? (() => undefined)
		});
	}

	private async failed(event: StoredEvent, error: unknown): Promise<void> {
		const { db, log } = this.options;
		const now = new Date(this.options.now());
		const reason = errorText(error);
		if (error instanceof ContractError && PERMANENT.has(error.code)) {
			log.warn('webhook event rejected as malformed', { event: event.eventId, type: event.eventType, reason });
			await markEventFailed(db, event, 'rejected', reason, now);
		} else if (event.processAttempts + 1 >= MAX_ATTEMPTS) {
			log.error('webhook event given up', { event: event.eventId, attempts: event.processAttempts + 1, reason });
			await markEventFailed(db, event, 'failed', reason, now);
		} else {
			const delay = retryDelayMs(event.processAttempts + 1);
			log.warn('webhook event will be retried', { event: event.eventId, attempts: event.processAttempts + 1, inMs: delay, reason });
			await markEventForRetry(db, event, reason, new Date(now.getTime() + delay));
		}
	}
}
