/**
 * Group commit for the webhook receiver: events arriving while a write is in flight go to the database
 * together in the next single INSERT, so the store keeps up with bursts on PGlite's one connection. Each
 * caller still learns only after its own event is committed. Under load the writes start at most every
 * few milliseconds: every statement costs PGlite about a millisecond however few rows it carries.
 */
import type { Queryable } from '../db/database';
import { storeWebhookEvents, type IncomingEvent } from '../db/webhook-events';

/** Least time between the starts of two writes while events keep arriving. */
const WRITE_INTERVAL_MS = 4;

interface Waiting {
	event: IncomingEvent;
	resolve: (seq: number | null) => void;
	reject: (error: unknown) => void;
}

export class EventWriter {
	private queue: Waiting[] = [];
	private flushing = false;
	private lastWriteAt = Number.NEGATIVE_INFINITY;

	constructor(
		private readonly db: Queryable,
		private readonly now: () => Date,
		private readonly maxBatch = 500
	) {}

	/** Resolves with the new event's queue position, or null when it was already stored (its id, or its body without one); rejects when the write failed. */
	store(event: IncomingEvent): Promise<number | null> {
		return new Promise((resolve, reject) => {
			this.queue.push({ event, resolve, reject });
			if (!this.flushing) {
				this.flushing = true;
				setImmediate(() => void this.flush());
			}
		});
	}

	private async flush(): Promise<void> {
		while (this.queue.length) {
			// When idle, write at once; under load, wait so that more events share the insert.
			const wait = this.lastWriteAt + WRITE_INTERVAL_MS - performance.now();
			if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
			this.lastWriteAt = performance.now();
			const batch = this.queue.splice(0, this.maxBatch);
			try {
				const inserted = await storeWebhookEvents(
					this.db,
					batch.map((waiting) => waiting.event),
					this.now()
				);
				for (const waiting of batch) {
					// Within a batch only the first of several identical ids (or id-less bodies) is the new one.
					const seq = inserted.get(waiting.event.eventId);
					inserted.delete(waiting.event.eventId);
					waiting.resolve(seq ?? null);
				}
			} catch (error) {
				for (const waiting of batch) waiting.reject(error);
			}
		}
		this.flushing = false;
	}
}
