import { describe, expect, it } from 'vitest';
import { parseAttachmentMeta, parseReceivedAttachmentMeta, validateAttachmentMeta } from './attachment-meta';
import { b64uEncode } from './encoding';
import { codeOfCall } from '$test-support/error-codes';

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

	it('names the rule each refused meta breaks', () => {
		const cases: [unknown, string][] = [
			[null, 'attachment meta must be a JSON object'],
			[[meta], 'attachment meta must be a JSON object'],
			['meta', 'attachment meta must be a JSON object'],
			[withField({ v: 2 }), 'attachment meta v must be 1'],
			[withField({ kind: 'image' }), 'attachment meta kind must be attachment'],
			[withField({ chunkSize: 1024 }), 'attachment meta chunkSize must be 65536'],
			[withField({ attachmentId: 'att_short' }), 'attachmentId must match ^att_[A-Za-z0-9_-]{8,64}$'],
			[withField({ name: '  ' }), 'name must be a non-empty string'],
			[withField({ name: 'n'.repeat(256) }), 'name must be at most 255 UTF-16 code units'],
			[withField({ name: 'a/b' }), 'name must not contain control characters, / or \\'],
			[withField({ mime: 'Image/JPEG' }), 'mime is not a valid lowercase media type'],
			[withField({ size: -1 }), 'size must be an integer from 0 to 26214400'],
			[withField({ key: 'AAAA' }), 'key must be 32 bytes, got 3'],
			[withField({ nonce: 'AAAA' }), 'nonce must be 24 bytes, got 3'],
			[withField({ digest: 'AAAA' }), 'digest must be 32 bytes, got 3'],
			[withField({ caption: 7 }), 'caption must be a string of at most 4000 UTF-16 code units'],
			[withField({ width: 10, height: null }), 'width and height must be given both or neither'],
			[withField({ width: null, height: 10 }), 'width and height must be given both or neither'],
			[withField({ width: 10.5, height: 10 }), 'width and height must be integers from 1 to 20000']
		];
		for (const [value, message] of cases) expect(() => validateAttachmentMeta(value), message).toThrow(message);
		expect(validateAttachmentMeta(withField({ width: null, height: undefined }))).not.toHaveProperty('width');
		expect(() => parseAttachmentMeta('{not json')).toThrow('attachment meta is not JSON');
		expect(() => parseReceivedAttachmentMeta(JSON.stringify(meta), 'att_otherone')).toThrow(
			'the meta names another attachment than the message'
		);
	});
});
