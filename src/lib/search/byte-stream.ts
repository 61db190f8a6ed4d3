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

export class ByteWriter {
	private bytes = new Uint8Array(1 << 16);
	private length = 0;

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
		while (rest >= 0x80) {
			this.bytes[this.length++] = (rest % 0x80) | 0x80;
			rest = Math.floor(rest / 0x80);
		}
		this.bytes[this.length++] = rest;
	}

	raw(bytes: Uint8Array): void {
		this.reserve(bytes.length);
		this.bytes.set(bytes, this.length);
		this.length += bytes.length;
	}

	string(text: string): void {
		const encoded = encoder.encode(text);
		this.varint(encoded.length);
		this.raw(encoded);
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

	string(): string {
		return this.utf8(this.varint());
	}
}
