import { describe, expect, it } from 'vitest';
import { parseAttachmentMeta, parseReceivedAttachmentMeta, validateAttachmentMeta } from './attachment-meta';
import { b64uEncode } from './encoding';
import { codeOfCall } from './test-support';

const meta = {
	v: 1,
	kind: 'attachment',
	attachmentId: 'att_abcdefgh',
	name: 'photo.jpg',
	mime: 'image/jpeg',
	size: 10,
	key: b64uEncode(new Uint8Array(32)),
	nonce: b64uEncode(new Uint8Array(24)),
	digest: b64uEncode(new Uint8Array(32)),
	chunkSize: 65536
};
const withField = (changes: Record<string, unknown>) => ({ ...meta, ...changes });

describe('attachment meta (contract 2.6)', () => {
	it('accepts a valid meta in any field order and drops unknown fields', () => {
		const reordered = Object.fromEntries(Object.entries({ ...meta, extra: true }).reverse());
		expect(validateAttachmentMeta(reordered)).toEqual(meta);
	});

	it('version problems are UNSUPPORTED_VERSION, checked first', () => {
		for (const changes of [{ v: 2 }, { v: '1' }, { kind: 'file' }, { chunkSize: 65535 }, { chunkSize: undefined }, { v: 2, name: '' }]) {
			expect(
				codeOfCall(() => validateAttachmentMeta(withField(changes))),
				JSON.stringify(changes)
			).toBe('UNSUPPORTED_VERSION');
		}
	});

	it('name: non-empty after trim, at most 255 UTF-16 code units, no controls or slashes', () => {
		expect(validateAttachmentMeta(withField({ name: 'x'.repeat(255) })).name).toHaveLength(255);
		expect(validateAttachmentMeta(withField({ name: '😀'.repeat(127) })).name).toHaveLength(254);
		for (const name of ['', '   ', 'x'.repeat(256), '😀'.repeat(128), 'a/b', 'a\\b', '../x', 'a\u0000b', 'a\u001fb', 'line\nbreak', 42]) {
			expect(
				codeOfCall(() => validateAttachmentMeta(withField({ name }))),
				String(name)
			).toBe('INVALID_INPUT');
		}
		expect(validateAttachmentMeta(withField({ name: 'tab\u007f.txt' })).name).toBe('tab\u007f.txt');
	});

	it('mime, size, key, nonce, digest and attachmentId follow their rules', () => {
		for (const changes of [
			{ mime: 'Image/jpeg' },
			{ mime: 'image' },
			{ mime: 'image/jpeg; charset=x' },
			{ size: -1 },
			{ size: 26_214_401 },
			{ size: 1.5 },
			{ size: '10' },
			{ key: b64uEncode(new Uint8Array(31)) },
			{ nonce: b64uEncode(new Uint8Array(32)) },
			{ digest: `${meta.digest}=` },
			{ attachmentId: 'att_short' },
			{ attachmentId: 'file_abcdefgh' }
		]) {
			expect(
				codeOfCall(() => validateAttachmentMeta(withField(changes))),
				JSON.stringify(changes)
			).toBe('INVALID_INPUT');
		}
		expect(validateAttachmentMeta(withField({ size: 26_214_400 })).size).toBe(26_214_400);
	});

	it('caption up to 4000 UTF-16 code units, null meaning absent', () => {
		expect(validateAttachmentMeta(withField({ caption: null }))).not.toHaveProperty('caption');
		expect(validateAttachmentMeta(withField({ caption: 'c'.repeat(4000) })).caption).toHaveLength(4000);
		expect(codeOfCall(() => validateAttachmentMeta(withField({ caption: 'c'.repeat(4001) })))).toBe('INVALID_INPUT');
		expect(codeOfCall(() => validateAttachmentMeta(withField({ caption: 7 })))).toBe('INVALID_INPUT');
	});

	it('width and height: both or neither, 1 to 20000', () => {
		expect(validateAttachmentMeta(withField({ width: 1, height: 20_000 }))).toMatchObject({ width: 1, height: 20_000 });
		for (const changes of [
			{ width: 10 },
			{ height: 10 },
			{ width: 0, height: 10 },
			{ width: 10, height: 20_001 },
			{ width: '10', height: 10 }
		]) {
			expect(
				codeOfCall(() => validateAttachmentMeta(withField(changes))),
				JSON.stringify(changes)
			).toBe('INVALID_INPUT');
		}
	});

	it('received meta must name the attachment of the message, else KEY_MISMATCH', () => {
		const text = JSON.stringify(meta);
		expect(parseReceivedAttachmentMeta(text, 'att_abcdefgh').name).toBe('photo.jpg');
		expect(codeOfCall(() => parseReceivedAttachmentMeta(text, 'att_otherone'))).toBe('KEY_MISMATCH');
		expect(codeOfCall(() => parseAttachmentMeta('{not json'))).toBe('INVALID_INPUT');
	});
});
