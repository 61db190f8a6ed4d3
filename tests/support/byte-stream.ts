/**
 * Bytes served as a byte stream, as a `fetch` body is: each read fills what fits the reader's buffer, at
 * most `maxRead` bytes (a network read brings a few KiB at a time). For the download pump's spec and the
 * browser benchmark's decryption from memory.
 */
export function byteStream(source: Uint8Array, maxRead = Infinity): ReadableStream<Uint8Array> {
	let offset = 0;
	return new ReadableStream({
		type: 'bytes',
		pull(controller) {
			const request = controller.byobRequest!;
			const view = request.view as Uint8Array;
			const length = Math.min(view.byteLength, source.length - offset, maxRead);
			if (length === 0) {
				controller.close();
				request.respond(0);
				return;
			}
			view.set(source.subarray(offset, offset + length));
			offset += length;
			request.respond(length);
		}
	}) as ReadableStream<Uint8Array>;
}
