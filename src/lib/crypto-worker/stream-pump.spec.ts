import { describe, expect, it } from 'vitest';
import { byteStream } from '$test-support/byte-stream';
import { PIECE_BYTES, pumpPieces } from './stream-pump';

const data = Uint8Array.from({ length: 1_500_000 }, (_, i) => (i * 13) & 255);

/** A worker stand-in that keeps the bytes and hands each buffer back, as the real one does. */
function receiver() {
	const pieces: Uint8Array[] = [];
	const sizes = () => pieces.map((piece) => piece.byteLength);
	const send = async (piece: Uint8Array) => {
		pieces.push(piece.slice());
		return structuredClone(piece.buffer, { transfer: [piece.buffer as ArrayBuffer] }) as ArrayBuffer; // detaches, as comlink's transfer does
	};
	const received = () => {
		const out = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
		pieces.reduce((offset, piece) => (out.set(piece, offset), offset + piece.length), 0);
		return out;
	};
	return { send, received, sizes };
}

describe('pumping a download to the worker', () => {
	it('reads a byte stream into a small pool of reused buffers, each filled whole, and sends every byte in order', async () => {
		const { send, received, sizes } = receiver();
		let sent = 0;
		const { buffersAllocated } = await pumpPieces(byteStream(data, 50_000), send, (bytes) => (sent += bytes));
		expect(Buffer.compare(received(), data)).toBe(0);
		expect(sent).toBe(data.length);
		// reads of at most 50,000 bytes gathered into pieces of 256 KiB; the pool of 4 is refilled, never grown
		expect(PIECE_BYTES).toBe(262_144);
		expect(sizes()).toEqual([...Array<number>(5).fill(PIECE_BYTES), data.length - 5 * PIECE_BYTES]);
		expect(buffersAllocated).toBe(4);
	});

	it('a byte stream that ends at a piece boundary sends no empty piece', async () => {
		const { send, received, sizes } = receiver();
		const exact = data.subarray(0, 2 * PIECE_BYTES);
		await pumpPieces(byteStream(exact, 50_000), send, () => undefined);
		expect(sizes()).toEqual([PIECE_BYTES, PIECE_BYTES]);
		expect(Buffer.compare(received(), exact)).toBe(0);
	});

	it('sends a plain stream chunk by chunk, copying only chunks that share a buffer', async () => {
		const shared = new Uint8Array(data.buffer.slice(0));
		const stream = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(shared.subarray(0, 100_000)); // a view on a larger buffer: copied
				controller.enqueue(data.slice(100_000)); // its own buffer: transferred as is
				controller.close();
			}
		});
		const { send, received } = receiver();
		await pumpPieces(stream, send, () => undefined);
		expect(Buffer.compare(received(), data)).toBe(0);
		expect(shared.byteLength).toBe(data.length); // never detached
	});

	it('a refused piece stops the reading, cancels the stream and is thrown', async () => {
		let cancelled = false;
		let pulls = 0;
		const stream = new ReadableStream<Uint8Array>({
			pull(controller) {
				pulls++;
				controller.enqueue(new Uint8Array(1000));
			},
			cancel() {
				cancelled = true;
			}
		});
		const failure = new Error('DECRYPT_FAILED');
		await expect(
			pumpPieces(
				stream,
				() => Promise.reject(failure),
				() => undefined
			)
		).rejects.toBe(failure);
		expect(cancelled).toBe(true);
		expect(pulls).toBeLessThan(20);
	});

	it('a broken download is thrown', async () => {
		const stream = new ReadableStream<Uint8Array>({
			pull(controller) {
				controller.error(new TypeError('network error'));
			}
		});
		await expect(
			pumpPieces(
				stream,
				async (piece) => piece.buffer as ArrayBuffer,
				() => undefined
			)
		).rejects.toThrow('network error');
	});

	it('keeps at most 4 pieces in flight, waiting for the worker before reading on', async () => {
		let inFlight = 0;
		let most = 0;
		const send = async (piece: Uint8Array) => {
			most = Math.max(most, ++inFlight);
			await new Promise((resolve) => setTimeout(resolve, 2));
			inFlight--;
			return structuredClone(piece.buffer, { transfer: [piece.buffer as ArrayBuffer] }) as ArrayBuffer;
		};
		let sent = 0;
		await pumpPieces(byteStream(data, 50_000), send, (bytes) => (sent += bytes));
		expect(sent).toBe(data.length);
		expect(most).toBe(4);
	});

	it('grows the pool when the worker keeps a buffer instead of handing it back', async () => {
		const { send, received } = receiver();
		const { buffersAllocated } = await pumpPieces(
			byteStream(data, 50_000),
			async (piece) => (await send(piece), new ArrayBuffer(0)),
			() => undefined
		);
		expect(Buffer.compare(received(), data)).toBe(0);
		expect(buffersAllocated).toBe(Math.ceil(data.length / PIECE_BYTES)); // one per piece
	});

	it('does not reuse a buffer the worker hands back at another size: every piece of a byte stream is still 256 KiB', async () => {
		const { send, received, sizes } = receiver();
		const { buffersAllocated } = await pumpPieces(
			byteStream(data, 50_000),
			async (piece) => (await send(piece), new ArrayBuffer(1000)),
			() => undefined
		);
		expect(Buffer.compare(received(), data)).toBe(0);
		expect(sizes()).toEqual([...Array<number>(5).fill(PIECE_BYTES), data.length - 5 * PIECE_BYTES]);
		expect(buffersAllocated).toBe(6);
	});

	it('transfers a chunk that owns its buffer, sends no empty chunk, and refuses a stream of anything but bytes', async () => {
		const own = data.slice(0, 1000);
		const pieces: number[] = [];
		const plain = (chunks: unknown[]) =>
			new ReadableStream<Uint8Array>({
				start(controller) {
					for (const chunk of chunks) controller.enqueue(chunk as Uint8Array);
					controller.close();
				}
			});
		const send = async (piece: Uint8Array) => {
			pieces.push(piece.byteLength);
			return structuredClone(piece.buffer, { transfer: [piece.buffer as ArrayBuffer] }) as ArrayBuffer;
		};
		await pumpPieces(plain([own, new Uint8Array(0), data.slice(0, 10)]), send, () => undefined);
		expect(pieces).toEqual([1000, 10]);
		expect(own.byteLength).toBe(0); // transferred, not copied

		let cancelled = false;
		let pulls = 0;
		const text = new ReadableStream<unknown>({
			pull(controller) {
				if (++pulls > 3) controller.close();
				else controller.enqueue('not bytes');
			},
			cancel() {
				cancelled = true;
			}
		});
		await expect(pumpPieces(text as ReadableStream<Uint8Array>, send, () => undefined)).rejects.toThrow(
			new TypeError('the stream must yield bytes')
		);
		expect(cancelled).toBe(true);
	});
});
