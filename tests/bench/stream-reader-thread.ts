/**
 * One thread of the live benches' stream readers (`stream-readers.ts`, through `stream-reader-thread.mjs`): it opens its share of the
 * `GET /api/events` streams with node:http and notes, for the run it follows, when each stream received
 * each `message.created`. The readers run beside the thread that sends the webhooks and times their
 * acknowledgements, so a thousand streams' reading does not delay those timings.
 */
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { clockMs, RunMessages, type SharedRun } from './run-messages';

export interface ReaderSetup {
	/** This reader's number, its slot in a run's shared buffers. */
	reader: number;
	url: string;
	cookies: string[];
}

/** What the thread is told, after its setup. */
export type ReaderCommand = { type: 'follow'; run: SharedRun } | { type: 'collect' } | { type: 'close' };

/** What it answers. */
export type ReaderReport =
	{ type: 'ready' } | { type: 'failed'; message: string } | { type: 'collected'; deliveries: Float64Array; bytes: number; missing: number };

const MESSAGE_MARK = Buffer.from('event: message.created\ndata: ');
const ID_MARK = Buffer.from('"messageId":"');
const QUOTE = 0x22;

/** The run followed now, with what this thread's streams received of it. */
interface Following {
	run: RunMessages;
	deliveries: number[];
	bytes: number;
}

/**
 * One SSE stream; it notes each `message.created` of the followed run once. It reads the bytes as they
 * come, without decoding them to text: the frames' marks and ids are ASCII.
 */
class BenchStream {
	readonly ready: Promise<void>;
	#markReady: (() => void) | undefined;
	#seen = new Uint8Array(0);
	#pending: Buffer = Buffer.alloc(0);
	#response: IncomingMessage | undefined;
	readonly #destroy: () => void;

	constructor(
		url: URL,
		cookie: string,
		agent: Agent,
		private readonly following: () => Following | undefined
	) {
		let fail!: (error: Error) => void;
		this.ready = new Promise((resolve, reject) => ((this.#markReady = resolve), (fail = reject)));
		const outgoing = request(
			{ host: url.hostname, port: url.port, path: '/api/events', headers: { cookie, accept: 'text/event-stream' }, agent },
			(response) => {
				this.#response = response;
				if (response.statusCode !== 200) fail(new Error(`GET /api/events answered ${response.statusCode}`));
				response.on('data', (chunk: Buffer) => this.#read(chunk));
			}
		);
		outgoing.on('error', fail);
		outgoing.end();
		this.#destroy = () => outgoing.destroy();
	}

	/** A new run is followed: nothing of it is seen yet. */
	follow(count: number): void {
		this.#seen = new Uint8Array(count);
	}

	/** Messages of the run acknowledged but not received by this stream. */
	missing(run: RunMessages): number {
		let missing = 0;
		for (let index = 0; index < run.acknowledged.length; index++) if (run.acknowledged[index] && !this.#seen[index]) missing++;
		return missing;
	}

	close(): void {
		this.#response?.destroy();
		this.#destroy();
	}

	/** Whole frames only: the bytes after the last blank line wait for the next chunk. */
	#read(chunk: Buffer): void {
		const buffered = this.#pending.length ? Buffer.concat([this.#pending, chunk]) : chunk;
		const end = buffered.lastIndexOf('\n\n');
		if (end < 0) {
			this.#pending = buffered;
			return;
		}
		this.#pending = Buffer.from(buffered.subarray(end + 2));
		if (this.#markReady && buffered.lastIndexOf('event: ready', end) >= 0) {
			this.#markReady();
			this.#markReady = undefined;
		}
		const following = this.following();
		if (!following) return;
		const { run } = following;
		following.bytes += chunk.length;
		const now = clockMs();
		for (let at = buffered.indexOf(MESSAGE_MARK); at >= 0 && at < end; at = buffered.indexOf(MESSAGE_MARK, at + MESSAGE_MARK.length)) {
			const idStart = buffered.indexOf(ID_MARK, at) + ID_MARK.length;
			const id = buffered.toString('latin1', idStart, buffered.indexOf(QUOTE, idStart));
			if (!id.startsWith(run.prefix)) continue;
			const index = Number(id.slice(run.prefix.length));
			if (this.#seen[index]) continue;
			this.#seen[index] = 1;
			following.deliveries.push(now - run.sentAt[index]);
			run.delivered(setup.reader, now);
		}
	}
}

const setup = workerData as ReaderSetup;
// The readers stand for the agents' browsers, which run on machines of their own: at the lowest priority
// they take only the CPU the server under test leaves, so a delay of theirs counts against the deliveries,
// never against the server. Linux sets a thread's niceness by its id.
execFileSync('renice', ['-n', '19', '-p', readlinkSync('/proc/thread-self').split('/').pop()!], { stdio: 'ignore' });
const port = parentPort!;
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
let following: Following | undefined;
const url = new URL(setup.url);
const streams = setup.cookies.map((cookie) => new BenchStream(url, cookie, agent, () => following));

Promise.all(streams.map((stream) => stream.ready)).then(
	() => port.postMessage({ type: 'ready' } satisfies ReaderReport),
	(error: Error) => port.postMessage({ type: 'failed', message: error.message } satisfies ReaderReport)
);

port.on('message', (command: ReaderCommand) => {
	if (command.type === 'follow') {
		const run = new RunMessages(command.run.prefix, 0, command.run);
		following = { run, deliveries: [], bytes: 0 };
		for (const stream of streams) stream.follow(run.sentAt.length);
	} else if (command.type === 'collect') {
		const run = following!.run;
		const deliveries = Float64Array.from(following!.deliveries);
		const missing = streams.reduce((sum, stream) => sum + stream.missing(run), 0);
		port.postMessage({ type: 'collected', deliveries, bytes: following!.bytes, missing } satisfies ReaderReport, [deliveries.buffer]);
	} else {
		for (const stream of streams) stream.close();
		agent.destroy();
		port.close();
	}
});
