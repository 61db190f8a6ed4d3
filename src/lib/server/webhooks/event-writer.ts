/**
 * Group commit for the webhook receiver (contract 5.2: stored and committed before the acknowledgement):
 * events arriving while a write is in flight go to the database together in a later single INSERT, and
 * each caller learns only after its own event is committed. Under load the writes start at most every
 * few milliseconds: every statement costs PGlite about a millisecond however few rows it carries. PGlite
 * has one connection, so its writes go one at a time; PostgreSQL keeps several in flight, so a batch does
 * not wait for the previous one's commit (its flush of the WAL to the disk) before it is sent, and commits
 * that meet are flushed together (docs/operations.md "Throughput").
 */
import type { Queryable } from '../db/database';
import { storeWebhookEvents, type IncomingEvent } from '../db/webhook-events';

export interface WritePacing {
	/** Least time between the starts of two writes while events keep arriving. */
	intervalMs: number;
	/** Writes in flight at once. */
	inFlight: number;
}

export const PGLITE_PACING: WritePacing = { intervalMs: 4, inFlight: 1 };
export const POSTGRES_PACING: WritePacing = { intervalMs: 4, inFlight: 4 };

interface Waiting {
	event: IncomingEvent;
	resolve: (seq: number | null) => void;
	reject: (error: unknown) => void;
}

export class EventWriter {
	private queue: Waiting[] = [];
	private writing = 0;
	private scheduled = false;
	private lastWriteAt = Number.NEGATIVE_INFINITY;

	constructor(
		private readonly db: Queryable,
		private readonly now: () => Date,
		private readonly pacing: WritePacing,
		private readonly maxBatch = 500
	) {}

	/** Resolves with the new event's queue position, or null when it was already stored (its id, or its body without one); rejects when the write failed. */
	store(event: IncomingEvent): Promise<number | null> {
		return new Promise((resolve, reject) => {
			this.queue.push({ event, resolve, reject });
			this.schedule();
		});
	}

	/** Starts the next write when one may start: at once when idle, else after the interval or a write in flight. */
	private schedule(): void {
		if (this.scheduled || this.writing >= this.pacing.inFlight || this.queue.length === 0) return;
		this.scheduled = true;
		const start = () => {
			this.scheduled = false;
			void this.write();
		};
		const wait = this.lastWriteAt + this.pacing.intervalMs - performance.now();
		if (wait > 0) setTimeout(start, wait);
		else setImmediate(start);
	}

	private async write(): Promise<void> {
		this.writing++;
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
		} finally {
			this.writing--;
			this.schedule();
		}
	}
}
