/**
 * The messages of one run of the live benches (`npm run bench:server`'s fan-out, `npm run bench:soak`),
 * shared between the thread that sends their webhooks and the threads that read the streams: when each
 * webhook left, whether it was acknowledged, how many deliveries the readers have seen and when each
 * reader saw its last. Times are the machine's clock in ms (`clockMs`), the same in every thread.
 */

/** Now, in ms of the machine's clock: comparable between threads, unlike `performance.now()`. */
export function clockMs(): number {
	return performance.timeOrigin + performance.now();
}

/** The most threads that read one run's streams. */
export const MAX_READERS = 8;

/** What a reader thread is given of a run (the buffers are shared, not copied). */
export interface SharedRun {
	prefix: string;
	sentAt: SharedArrayBuffer;
	acknowledged: SharedArrayBuffer;
	received: SharedArrayBuffer;
	lastDeliveries: SharedArrayBuffer;
}

export class RunMessages {
	/** When each webhook left (`clockMs`). */
	readonly sentAt: Float64Array;
	readonly acknowledged: Uint8Array;
	/** [0]: the deliveries all the readers have seen so far. */
	readonly #received: Int32Array;
	/** When each reader saw its last delivery (`clockMs`), by the reader's number. */
	readonly lastDeliveries: Float64Array;

	constructor(
		readonly prefix: string,
		count: number,
		shared?: SharedRun
	) {
		this.sentAt = new Float64Array(shared?.sentAt ?? new SharedArrayBuffer(count * Float64Array.BYTES_PER_ELEMENT));
		this.acknowledged = new Uint8Array(shared?.acknowledged ?? new SharedArrayBuffer(count));
		this.#received = new Int32Array(shared?.received ?? new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
		this.lastDeliveries = new Float64Array(shared?.lastDeliveries ?? new SharedArrayBuffer(MAX_READERS * Float64Array.BYTES_PER_ELEMENT));
	}

	/** The run as its readers are given it. */
	shared(): SharedRun {
		return {
			prefix: this.prefix,
			sentAt: this.sentAt.buffer as SharedArrayBuffer,
			acknowledged: this.acknowledged.buffer as SharedArrayBuffer,
			received: this.#received.buffer as SharedArrayBuffer,
			lastDeliveries: this.lastDeliveries.buffer as SharedArrayBuffer
		};
	}

	/** Deliveries seen so far by all the readers. */
	get received(): number {
		return Atomics.load(this.#received, 0);
	}

	/** A reader saw a delivery at `at`. */
	delivered(reader: number, at: number): void {
		Atomics.add(this.#received, 0, 1);
		this.lastDeliveries[reader] = at;
	}

	/** When the last delivery of any reader came (`clockMs`), 0 before any. */
	get lastDelivery(): number {
		return Math.max(...this.lastDeliveries);
	}
}
