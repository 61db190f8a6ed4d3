import { describe, expect, it } from 'vitest';
import { PIECE_BYTES, pumpPieces } from './stream-pump';

const data = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 13) & 255);

/** A byte stream like a fetch body: it hands out whatever fits the reader's buffer. */
function byteStream(source: Uint8Array): ReadableStream<Uint8Array> {
	let offset = 0;
	return new ReadableStream({
		type: 'bytes',
		pull(controller) {
			const request = controller.byobRequest!;
			const view = request.view as Uint8Array;
			const length = Math.min(view.byteLength, source.length - offset, 50_000);
			if (length === 0) {
				controller.close();
				request.respond(0);
				return;
			}
			view.set(source.subarray(offset, offset + length));
			offset += length;
			request.respond(length);
		}
	});
}

/** A worker stand-in that keeps the bytes and hands each buffer back, as the real one does. */
function receiver() {
	const pieces: Uint8Array[] = [];
	const send = async (piece: Uint8Array) => {
		pieces.push(piece.slice());
		return structuredClone(piece.buffer, { transfer: [piece.buffer as ArrayBuffer] }) as ArrayBuffer; // detaches, as comlink's transfer does
	};
	const received = () => {
		const out = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
		pieces.reduce((offset, piece) => (out.set(piece, offset), offset + piece.length), 0);
		return out;
	};
	return { send, received };
}

describe('pumping a download to the worker', () => {
	it('reads a byte stream into a small pool of reused buffers and sends every byte in order', async () => {
		const { send, received } = receiver();
		let sent = 0;
		const { buffersAllocated } = await pumpPieces(byteStream(data), send, (bytes) => (sent += bytes));
		expect(Buffer.compare(received(), data)).toBe(0);
		expect(sent).toBe(data.length);
		expect(buffersAllocated).toBe(4); // 300,000 bytes in pieces of at most 50,000: the pool of 4 is refilled, never grown
		expect(PIECE_BYTES).toBe(65_536);
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
});
