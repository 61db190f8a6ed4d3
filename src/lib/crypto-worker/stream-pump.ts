/**
 * The page's half of a streamed attachment decryption: reads a `fetch` body and hands
 * each piece to the worker as a transferred ArrayBuffer (never a copy), a few pieces in flight. A
 * byte stream is read into a small pool of buffers that the worker hands back, so a 25 MiB download
 * leaves no garbage behind on either side of the boundary.
 */

export const PIECE_BYTES = 256 * 1024;
const IN_FLIGHT = 4;

/** A piece that can be transferred whole: its view covers its entire buffer (so it starts at 0). */
function ownBuffer(piece: Uint8Array): Uint8Array {
	return piece.byteLength === piece.buffer.byteLength && piece.buffer instanceof ArrayBuffer ? piece : piece.slice();
}

function readerOf(stream: ReadableStream<Uint8Array>): {
	reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>;
	byob: boolean;
} {
	try {
		return { reader: stream.getReader({ mode: 'byob' }), byob: true };
	} catch {
		return { reader: stream.getReader(), byob: false }; // not a byte stream
	}
}

/**
 * Reads into `buffer` until it is full or the stream ends: a network read brings a few KiB at a time,
 * and each message to the worker costs about 0.1 ms, as much as decrypting 20 KiB, so pieces go over whole.
 */
async function fillPiece(reader: ReadableStreamBYOBReader, buffer: ArrayBuffer): Promise<{ piece: Uint8Array; done: boolean }> {
	let current = buffer;
	let filled = 0;
	while (filled < current.byteLength) {
		const read = await reader.read(new Uint8Array(current, filled));
		// each read transfers the buffer: what comes back is the same memory under a new ArrayBuffer
		if (read.value) current = read.value.buffer as ArrayBuffer;
		filled += read.value?.byteLength ?? 0;
		if (read.done) return { piece: new Uint8Array(current, 0, filled), done: true };
	}
	return { piece: new Uint8Array(current), done: false };
}

/**
 * Reads `stream` to its end, calling `send` with each piece (whose buffer it must transfer) and
 * `onSent` with its length once the worker has taken it. The first failure of a read or of a send
 * cancels the stream and is thrown. Returns how many pool buffers it had to allocate.
 */
export async function pumpPieces(
	stream: ReadableStream<Uint8Array>,
	send: (piece: Uint8Array) => Promise<ArrayBuffer>,
	onSent: (bytes: number) => void
): Promise<{ buffersAllocated: number }> {
	const { reader, byob } = readerOf(stream);
	let buffersAllocated = 0;
	const allocate = () => {
		buffersAllocated++;
		return new ArrayBuffer(PIECE_BYTES);
	};
	const free: ArrayBuffer[] = byob ? Array.from({ length: IN_FLIGHT }, allocate) : [];
	const inFlight = new Set<Promise<void>>();
	let failure: { error: unknown } | undefined;

	const dispatch = (piece: Uint8Array) => {
		const length = piece.byteLength; // the transfer detaches the piece
		const pending: Promise<void> = send(piece)
			.then(
				(buffer) => {
					// Stryker disable next-line LogicalOperator: equivalent: a plain stream never takes from the pool, so what it holds is never read
					if (byob && buffer.byteLength === PIECE_BYTES) free.push(buffer);
					onSent(length);
				},
				(error) => {
					failure ??= { error };
				}
			)
			.finally(() => inFlight.delete(pending));
		inFlight.add(pending);
	};

	try {
		for (;;) {
			while (inFlight.size >= IN_FLIGHT && !failure) await Promise.race(inFlight);
			if (failure) break;
			if (byob) {
				const { piece, done } = await fillPiece(reader as ReadableStreamBYOBReader, free.pop() ?? allocate());
				if (piece.byteLength > 0) dispatch(piece);
				if (done) break;
				continue;
			}
			const read = await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
			if (read.done) break;
			if (!(read.value instanceof Uint8Array)) throw new TypeError('the stream must yield bytes');
			if (read.value.byteLength > 0) dispatch(ownBuffer(read.value));
		}
		await Promise.all(inFlight);
	} catch (error) {
		failure ??= { error };
	}
	if (failure) {
		await reader.cancel().catch(() => undefined);
		throw failure.error;
	}
	return { buffersAllocated };
}
