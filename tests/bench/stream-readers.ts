/**
 * The live benches' stream readers: `GET /api/events` streams opened and read in worker threads
 * (`stream-reader-thread.ts`), a share each, so the thread that sends the webhooks and times their
 * acknowledgements is not the one that reads a thousand streams. Reading them in the sending thread
 * made that thread the bottleneck: against a bare server, the acknowledgements' and the deliveries'
 * times became its own delays.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { MAX_READERS, type RunMessages } from './run-messages';
import type { ReaderCommand, ReaderReport, ReaderSetup } from './stream-reader-thread';

/** Threads for `count` streams: none without streams, one for a few, two (this machine's cores) for more. */
function threadsFor(count: number): number {
	return Math.min(MAX_READERS, count === 0 ? 0 : count <= 100 ? 1 : 2);
}

/** What the readers saw of a run. */
export interface RunReading {
	/** Each delivery's time from its webhook's send to its receipt, ms, sorted. */
	deliveries: number[];
	bytes: number;
	/** Deliveries of acknowledged messages that did not arrive, over all streams. */
	missing: number;
}

export class StreamReaders {
	private constructor(private readonly workers: Worker[]) {}

	/** Opens `count` streams of `base`, the stream at `index` with `cookieOf(index)`; resolves once every one is ready. */
	static async open(base: string, cookieOf: (index: number) => string, count: number): Promise<StreamReaders> {
		const threads = threadsFor(count);
		const workers = Array.from({ length: threads }, (_, reader) => {
			const cookies: string[] = [];
			for (let index = reader; index < count; index += threads) cookies.push(cookieOf(index));
			const setup: ReaderSetup = { reader, url: base, cookies };
			return new Worker(join(import.meta.dirname, 'stream-reader-thread.mjs'), { workerData: setup });
		});
		const readers = new StreamReaders(workers);
		try {
			await Promise.all(
				workers.map(async (worker) => {
					const report = await readers.next(worker);
					if (report.type !== 'ready') throw new Error(`a stream did not open: ${report.type === 'failed' ? report.message : report.type}`);
				})
			);
		} catch (error) {
			await readers.close();
			throw error;
		}
		return readers;
	}

	/** From now on, the streams count the messages of `run`. */
	follow(run: RunMessages): void {
		this.tell({ type: 'follow', run: run.shared() });
	}

	/** What the streams received of the run they follow. */
	async collect(): Promise<RunReading> {
		this.tell({ type: 'collect' });
		const reports = await Promise.all(this.workers.map((worker) => this.next(worker)));
		const reading: RunReading = { deliveries: [], bytes: 0, missing: 0 };
		for (const report of reports) {
			if (report.type !== 'collected') throw new Error(`a reader answered ${report.type}`);
			for (const delivery of report.deliveries) reading.deliveries.push(delivery);
			reading.bytes += report.bytes;
			reading.missing += report.missing;
		}
		reading.deliveries.sort((a, b) => a - b);
		return reading;
	}

	async close(): Promise<void> {
		this.tell({ type: 'close' });
		await Promise.all(this.workers.map((worker) => worker.terminate()));
	}

	private tell(command: ReaderCommand): void {
		for (const worker of this.workers) worker.postMessage(command);
	}

	private next(worker: Worker): Promise<ReaderReport> {
		return new Promise((resolve, reject) => {
			const settle = () => {
				worker.off('message', answered);
				worker.off('error', failed);
			};
			const answered = (report: ReaderReport) => (settle(), resolve(report));
			const failed = (error: Error) => (settle(), reject(error));
			worker.on('message', answered);
			worker.on('error', failed);
		});
	}
}
