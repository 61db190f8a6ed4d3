/**
 * The disk's own flush latency beside the PostgreSQL runs of `npm run bench:server` (docs/operations.md
 * "Throughput"): a worker thread writes 8 KB to a file and flushes it (fdatasync, as PostgreSQL flushes
 * its WAL here) 50 times a second, in the directory the throwaway cluster keeps its files in. A durable
 * commit waits for at least one such flush, so while the disk stalls every acknowledgement waits.
 */
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } = require('node:fs');
const { join } = require('node:path');
const dir = mkdtempSync(join(workerData.dir, 'flush-probe-'));
const fd = openSync(join(dir, 'probe'), 'w');
const page = Buffer.alloc(8192, 1);
const latencies = [];
const timer = setInterval(() => {
	const started = performance.now();
	writeSync(fd, page, 0, page.length, 0);
	fdatasyncSync(fd);
	latencies.push(performance.now() - started);
}, 20);
parentPort.once('message', () => {
	clearInterval(timer);
	closeSync(fd);
	rmSync(dir, { recursive: true, force: true });
	parentPort.postMessage(latencies);
});
`;

export interface FlushProbe {
	/** Stops probing; the flushes' latencies in milliseconds, sorted. */
	stop(): Promise<number[]>;
}

export function startFlushProbe(dir = tmpdir()): FlushProbe {
	const worker = new Worker(WORKER, { eval: true, workerData: { dir } });
	return {
		async stop() {
			const latencies = new Promise<number[]>((resolve) => worker.once('message', resolve));
			worker.postMessage('stop');
			const sorted = (await latencies).sort((a, b) => a - b);
			await worker.terminate();
			return sorted;
		}
	};
}
