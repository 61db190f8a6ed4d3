/**
 * A small PNG drawn in Node for the demo's "photo from a customer" (no image files in the repository):
 * RGB, 8 bits, one IDAT chunk, deflated with node:zlib.
 */
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(body) >>> 0);
	return Buffer.concat([length, body, crc]);
}

/** A width × height picture of `pixel(x, y) → [r, g, b]`. */
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): Buffer {
	const rows = Buffer.alloc((width * 3 + 1) * height);
	let offset = 0;
	for (let y = 0; y < height; y++) {
		rows[offset++] = 0; // filter: none
		for (let x = 0; x < width; x++) {
			const [r, g, b] = pixel(x, y);
			rows[offset++] = r;
			rows[offset++] = g;
			rows[offset++] = b;
		}
	}
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header[8] = 8; // bit depth
	header[9] = 2; // colour type: RGB
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', header),
		chunk('IDAT', deflateSync(rows)),
		chunk('IEND', Buffer.alloc(0))
	]);
}

/** The demo's parcel photo: a box on a table, in flat colours. */
export function parcelPhoto(width = 480, height = 320): Buffer {
	return encodePng(width, height, (x, y) => {
		const inBox = x > width * 0.25 && x < width * 0.75 && y > height * 0.3 && y < height * 0.8;
		const tape = inBox && Math.abs(x - width / 2) < width * 0.03;
		const dent = inBox && (x - width * 0.62) ** 2 + (y - height * 0.45) ** 2 < (height * 0.09) ** 2;
		if (tape) return [214, 196, 150];
		if (dent) return [120, 82, 44];
		if (inBox) return [176, 124, 72];
		if (y > height * 0.8) return [92, 70, 58];
		return [226 - Math.floor((y / height) * 40), 232 - Math.floor((y / height) * 40), 238];
	});
}
