/**
 * A pool of chunk workers shared by every attachment pipeline of a thread (docs/crypto-worker.md,
 * "Parallel chunks"). Each job of chunks goes to the worker with the fewest jobs outstanding. A worker that
 * dies fails every open session (its keys and its chunks are gone) and is replaced for the next one.
 */
import type { ChunkDirection, FromChunkWorker, JobChunk, ToChunkWorker } from './protocol';

/** One chunk worker as the pool sees it, whatever starts it. */
export interface ChunkWorkerPort {
	post(message: ToChunkWorker, transfer?: Transferable[]): void;
	terminate(): void;
}

export interface ChunkWorkerEvents {
	message(message: FromChunkWorker): void;
	/** The worker died, threw, or could not start. */
	failed(reason: string): void;
}

/** Starts one chunk worker (a Web Worker, a `worker_threads` worker) and wires its events. */
export type StartChunkWorker = (events: ChunkWorkerEvents) => ChunkWorkerPort;

/** What a pipeline hears of its session. */
export interface SessionListener {
	/** A job came back: its chunks processed in place, or `failedIndex` (the buffer then zeroed). */
	jobDone(chunks: JobChunk[], failedIndex: number | null, buffer: ArrayBuffer): void;
	failed(reason: string): void;
}

export interface SessionKeys {
	fileKey: Uint8Array;
	nonceBase: Uint8Array;
	attachmentId: string;
}

interface Slot {
	port: ChunkWorkerPort;
	outstanding: number;
	statusWaiters: Array<(openSessions: number) => void>;
}

export class ChunkWorkerPool {
	private readonly slots: Slot[] = [];
	private readonly sessions = new Map<number, SessionListener>();
	private nextSession = 1;
	private stopped = false;

	constructor(
		private readonly start: StartChunkWorker,
		/** How many chunk workers run at most. */
		readonly size: number
	) {
		if (!Number.isInteger(size) || size < 1) throw new RangeError('a chunk worker pool needs at least one worker');
	}

	private fill(): void {
		if (this.stopped) throw new Error('the chunk worker pool was stopped');
		while (this.slots.length < this.size) {
			const slot: Slot = { port: undefined as unknown as ChunkWorkerPort, outstanding: 0, statusWaiters: [] };
			slot.port = this.start({
				message: (message) => this.received(slot, message),
				failed: (reason) => this.lost(slot, reason)
			});
			this.slots.push(slot);
		}
	}

	private received(slot: Slot, message: FromChunkWorker): void {
		if (message.kind === 'status') {
			slot.statusWaiters.shift()?.(message.openSessions);
			return;
		}
		slot.outstanding--;
		const listener = this.sessions.get(message.session);
		// A job of a session that ended (failed or aborted) may hold plaintext: wiped, then dropped.
		if (listener) listener.jobDone(message.chunks, message.failedIndex, message.buffer);
		else new Uint8Array(message.buffer).fill(0);
	}

	/** A worker died: it is dropped, and every session (it held all their keys) is closed in the others and fails. */
	private lost(slot: Slot, reason: string): void {
		const position = this.slots.indexOf(slot);
		if (position < 0) return;
		this.slots.splice(position, 1);
		slot.port.terminate();
		for (const waiter of slot.statusWaiters) waiter(0);
		for (const [session, listener] of [...this.sessions]) {
			this.close(session);
			listener.failed(`a chunk worker stopped: ${reason}`);
		}
	}

	/** Opens a session on every worker; the caller keeps (and wipes) its own copy of F. */
	open(keys: SessionKeys, listener: SessionListener): number {
		this.fill();
		// Stryker disable next-line UpdateOperator: equivalent: counting down gives unique session ids too
		const session = this.nextSession++;
		this.sessions.set(session, listener);
		for (const slot of this.slots) slot.port.post({ kind: 'open', session, ...keys });
		return session;
	}

	/** Hands a job of chunks, in `buffer`, to the least busy worker; the buffer is transferred. */
	dispatch(session: number, job: { direction: ChunkDirection; chunks: JobChunk[]; buffer: ArrayBuffer }): void {
		const slot = this.slots.reduce((best, candidate) => (candidate.outstanding < best.outstanding ? candidate : best));
		slot.outstanding++;
		slot.port.post({ kind: 'job', session, ...job }, [job.buffer]);
	}

	/** Wipes the session's key in every worker; jobs still out are wiped and dropped when they return. */
	close(session: number): void {
		if (!this.sessions.delete(session)) return;
		for (const slot of this.slots) slot.port.post({ kind: 'close', session });
	}

	/** How many sessions each running worker still holds (0 everywhere once every pipeline ended). */
	status(): Promise<number[]> {
		return Promise.all(
			this.slots.map(
				(slot) =>
					new Promise<number>((resolve) => {
						slot.statusWaiters.push(resolve);
						slot.port.post({ kind: 'status' });
					})
			)
		);
	}

	/** How many workers run now (a dead one is replaced at the next session). */
	get running(): number {
		return this.slots.length;
	}

	/** Stops every worker; open sessions fail. */
	terminate(): void {
		this.stopped = true;
		for (const slot of [...this.slots]) this.lost(slot, 'the pool was stopped');
	}
}
