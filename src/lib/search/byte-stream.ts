/**
 * The bytes of the search index at rest (docs/search.md, "The index at rest"): unsigned varints
 * (7 bits a byte, up to 2^53), UTF-8 strings prefixed by their length, raw byte runs. The reader
 * checks every bound and throws `DamagedIndexError` on a truncated or malformed stream.
 */

export class DamagedIndexError extends Error {
	constructor(what: string) {
		super(`the search index is damaged: ${what}`);
		this.name = 'DamagedIndexError';
	}
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Writes a varint below 2^31 at `at`; returns where it ends. */
function putVarint31(bytes: Uint8Array, at: number, value: number): number {
	let rest = value;
	let end = at;
	while (rest >= 0x80) {
		bytes[end++] = (rest & 0x7f) | 0x80;
		rest >>>= 7;
	}
	bytes[end++] = rest;
	return end;
}

export class ByteWriter {
	private bytes = new Uint8Array(1 << 16);
	private length = 0;
	/** A string is encoded here first, as its length goes before it. */
	private scratch = new Uint8Array(1 << 16);

	private reserve(more: number): void {
		if (this.length + more <= this.bytes.length) return;
		const grown = new Uint8Array(Math.max(this.length + more, Math.ceil(this.bytes.length * 1.5)));
		grown.set(this.bytes.subarray(0, this.length));
		this.bytes = grown;
	}

	/** A whole number from 0 to 2^53 − 1. */
	varint(value: number): void {
		this.reserve(8);
		let rest = value;
		while (rest >= 0x80000000) {
			this.bytes[this.length++] = (rest % 0x80) | 0x80;
			rest = Math.floor(rest / 0x80);
		}
		this.length = putVarint31(this.bytes, this.length, rest);
	}

	/** An ascending list of ordinals (each below 2^31): its length, then the steps from −1, one varint each. */
	ascending(ordinals: Int32Array): void {
		this.varint(ordinals.length);
		this.reserve(ordinals.length * 5);
		let previous = -1;
		for (let i = 0; i < ordinals.length; i++) {
			this.length = putVarint31(this.bytes, this.length, ordinals[i] - previous);
			previous = ordinals[i];
		}
	}

	string(text: string): void {
		if (this.scratch.length < text.length * 3) this.scratch = new Uint8Array(text.length * 3);
		const { written } = encoder.encodeInto(text, this.scratch);
		this.varint(written);
		this.raw(this.scratch.subarray(0, written));
	}

	/** The texts in UTF-8 one after the other, after their byte length (a varint padded to five bytes, known only once written). */
	texts(texts: readonly string[]): void {
		this.reserve(5 + 3 * texts.reduce((sum, text) => sum + text.length, 0));
		const lengthAt = this.length;
		let at = lengthAt + 5;
		for (const text of texts) at += encoder.encodeInto(text, this.bytes.subarray(at)).written;
		let length = at - lengthAt - 5;
		for (let i = 0; i < 4; i++, length >>>= 7) this.bytes[lengthAt + i] = (length & 0x7f) | 0x80;
		this.bytes[lengthAt + 4] = length;
		this.length = at;
	}

	raw(bytes: Uint8Array): void {
		this.reserve(bytes.length);
		this.bytes.set(bytes, this.length);
		this.length += bytes.length;
	}

	/** The bytes written, without the spare capacity. */
	finish(): Uint8Array {
		return this.bytes.slice(0, this.length);
	}
}

export class ByteReader {
	private offset = 0;

	constructor(private readonly bytes: Uint8Array) {}

	get done(): boolean {
		return this.offset === this.bytes.length;
	}

	varint(): number {
		const first = this.bytes[this.offset];
		if (first < 0x80) {
			this.offset++;
			return first;
		}
		let value = 0;
		let scale = 1;
		for (let shift = 0; shift < 8; shift++) {
			if (this.offset >= this.bytes.length) throw new DamagedIndexError('it ends in a number');
			const byte = this.bytes[this.offset++];
			value += (byte & 0x7f) * scale;
			if (byte < 0x80) return value;
			scale *= 0x80;
		}
		throw new DamagedIndexError('a number is too long');
	}

	/** A varint no larger than `limit`. */
	bounded(limit: number, what: string): number {
		const value = this.varint();
		if (value > limit) throw new DamagedIndexError(`${what} out of range`);
		return value;
	}

	raw(length: number): Uint8Array {
		if (length > this.bytes.length - this.offset) throw new DamagedIndexError('it ends early');
		const bytes = this.bytes.subarray(this.offset, this.offset + length);
		this.offset += length;
		return bytes;
	}

	utf8(length: number): string {
		try {
			return decoder.decode(this.raw(length));
		} catch (error) {
			if (error instanceof DamagedIndexError) throw error;
			throw new DamagedIndexError('a text is not UTF-8');
		}
	}

	/** What `ascending` wrote, each ordinal below `limit`, strictly ascending. */
	ascending(limit: number): Int32Array {
		const ordinals = new Int32Array(this.bounded(limit, 'a list length'));
		const bytes = this.bytes;
		let at = this.offset;
		let previous = -1;
		for (let i = 0; i < ordinals.length; i++) {
			let step = 0;
			for (let shift = 0; ; shift += 7) {
				if (at >= bytes.length || shift > 28) throw new DamagedIndexError('a list ends early or has a step too long');
				const byte = bytes[at++];
				step |= (byte & 0x7f) << shift;
				if (byte < 0x80) break;
			}
			previous += step;
			if (step <= 0 || previous >= limit) throw new DamagedIndexError('a list out of order or out of range');
			ordinals[i] = previous;
		}
		this.offset = at;
		return ordinals;
	}

	string(): string {
		return this.utf8(this.varint());
	}
}
