import { describe, expect, it } from 'vitest';
import { ChunkWorkerPool, type ChunkWorkerEvents, type SessionListener } from './pool';
import type { ToChunkWorker } from './protocol';

/** Chunk workers that only record what they are sent; the test answers for them. */
function recordingPool(size: number) {
	const workers: Array<{ events: ChunkWorkerEvents; sent: ToChunkWorker[]; transferred: Transferable[][]; terminated: boolean }> = [];
	const pool = new ChunkWorkerPool((events) => {
		const worker = { events, sent: [] as ToChunkWorker[], transferred: [] as Transferable[][], terminated: false };
		workers.push(worker);
		return {
			post: (message, transfer = []) => (worker.sent.push(message), worker.transferred.push(transfer)),
			terminate: () => (worker.terminated = true)
		};
	}, size);
	return { pool, workers };
}

function listener() {
	const heard: string[] = [];
	const chunks: ArrayBuffer[] = [];
	const session: SessionListener = {
		jobDone: (jobChunks, failedIndex, buffer) => {
			heard.push(`${jobChunks.map((chunk) => chunk.index).join(',')}:${failedIndex}`);
			chunks.push(buffer);
		},
		failed: (reason) => heard.push(`failed: ${reason}`)
	};
	return { session, heard, chunks };
}

const keys = { fileKey: new Uint8Array(32), nonceBase: new Uint8Array(24), attachmentId: 'att_poolSpec0001' };
const job = (index: number) => ({
	direction: 'decrypt' as const,
	chunks: [{ index, last: false, length: 20 }],
	buffer: new ArrayBuffer(64)
});

describe('the chunk worker pool', () => {
	it('starts its workers at the first session, opens each session on all of them, and gives each job to the least busy', () => {
		const { pool, workers } = recordingPool(3);
		expect(workers).toHaveLength(0);
		const { session, heard } = listener();
		const id = pool.open(keys, session);
		expect(workers.map((worker) => worker.sent.map((message) => message.kind))).toEqual([['open'], ['open'], ['open']]);
		for (let index = 0; index < 4; index++) pool.dispatch(id, job(index));
		const chunksOf = (worker: (typeof workers)[number]) =>
			worker.sent.flatMap((message) => (message.kind === 'job' ? [message.chunks[0].index] : []));
		expect(workers.map(chunksOf)).toEqual([[0, 3], [1], [2]]);
		workers[1].events.message({ kind: 'job', session: id, chunks: job(1).chunks, failedIndex: null, buffer: new ArrayBuffer(8) });
		pool.dispatch(id, job(4));
		expect(chunksOf(workers[1])).toEqual([1, 4]);
		expect(heard).toEqual(['1:null']);
		pool.close(id);
		expect(workers.every((worker) => worker.sent.at(-1)?.kind === 'close')).toBe(true);
	});

	it('transfers each job’s buffer to its worker rather than copying it', () => {
		const { pool, workers } = recordingPool(1);
		const id = pool.open(keys, listener().session);
		const sent = job(0);
		pool.dispatch(id, sent);
		expect(workers[0].sent.at(-1)).toMatchObject({ kind: 'job', session: id, buffer: sent.buffer });
		expect(workers[0].transferred.at(-1)).toEqual([sent.buffer]);
		expect(workers[0].transferred.at(-1)?.[0]).toBe(sent.buffer);
	});

	it('wipes a job that comes back after its session ended, and hands it to no one', () => {
		const { pool, workers } = recordingPool(1);
		const { session, heard } = listener();
		const id = pool.open(keys, session);
		pool.dispatch(id, job(0));
		pool.close(id);
		const late = new Uint8Array(16).fill(0xab);
		workers[0].events.message({ kind: 'job', session: id, chunks: job(0).chunks, failedIndex: null, buffer: late.buffer });
		expect(late.every((byte) => byte === 0)).toBe(true);
		expect(heard).toEqual([]);
	});

	it('a worker that dies fails every open session and is replaced at the next one', () => {
		const { pool, workers } = recordingPool(2);
		const first = listener();
		const second = listener();
		pool.open(keys, first.session);
		pool.open(keys, second.session);
		workers[0].events.failed('out of memory');
		expect(first.heard).toEqual(['failed: a chunk worker stopped: out of memory']);
		expect(second.heard).toEqual(['failed: a chunk worker stopped: out of memory']);
		expect(workers[0].terminated).toBe(true);
		expect(pool.running).toBe(1);
		workers[0].events.failed('again');
		expect(first.heard).toHaveLength(1);
		pool.open(keys, listener().session);
		expect(workers).toHaveLength(3);
		expect(pool.running).toBe(2);
	});

	it('reports each worker’s open sessions, refuses a size under one, and stops for good', async () => {
		expect(() => recordingPool(0)).toThrow('at least one worker');
		const { pool, workers } = recordingPool(2);
		const { session, heard } = listener();
		pool.open(keys, session);
		const status = pool.status();
		workers[0].events.message({ kind: 'status', openSessions: 1 });
		workers[1].events.message({ kind: 'status', openSessions: 0 });
		expect(await status).toEqual([1, 0]);
		pool.terminate();
		expect(heard).toEqual(['failed: a chunk worker stopped: the pool was stopped']);
		expect(workers.every((worker) => worker.terminated)).toBe(true);
		expect(() => pool.open(keys, session)).toThrow('the chunk worker pool was stopped');
	});
});
