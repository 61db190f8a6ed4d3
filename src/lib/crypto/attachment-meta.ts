/**
 * Attachment meta (contract 2.6): the encrypted JSON of an `attachment` message. The same
 * validation runs when sending and when receiving; version problems are `UNSUPPORTED_VERSION`,
 * every other field `INVALID_INPUT` (order: docs/contract-gaps.md §10).
 */
import { fail } from '../errors';
import { b64uDecodeLength } from './encoding';
import { isIntegerIn, DIGEST_BYTES, KEY_BYTES, NONCE_BYTES } from './rules';

export const CHUNK_SIZE = 65_536;
export const MAX_ATTACHMENT_SIZE = 26_214_400;
export const MAX_NAME_UTF16 = 255;
export const MAX_CAPTION_UTF16 = 4000;
export const MAX_IMAGE_DIMENSION = 20_000;

export interface AttachmentMeta {
	v: 1;
	kind: 'attachment';
	attachmentId: string;
	name: string;
	mime: string;
	/** Plaintext bytes. */
	size: number;
	/** b64u of the file key F (32 bytes). */
	key: string;
	/** b64u of nonceBase (24 bytes). */
	nonce: string;
	/** b64u of BLAKE2b-256 of the whole plaintext. */
	digest: string;
	chunkSize: 65536;
	caption?: string;
	width?: number;
	height?: number;
}

const ATTACHMENT_ID_RULE = /^att_[A-Za-z0-9_-]{8,64}$/;
const MIME_RULE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,127}$/;
// U+0000–U+001F, `/` and `\`.
// eslint-disable-next-line no-control-regex -- the contract forbids exactly these control characters
const FORBIDDEN_NAME_CHARACTERS = /[\u0000-\u001f/\\]/;

export function isAttachmentId(value: unknown): value is string {
	return typeof value === 'string' && ATTACHMENT_ID_RULE.test(value);
}

/** Validates a parsed meta object and returns a clean copy without unknown fields. */
export function validateAttachmentMeta(value: unknown): AttachmentMeta {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('INVALID_INPUT', 'attachment meta must be a JSON object');
	const meta = value as Record<string, unknown>;
	if (meta.v !== 1) fail('UNSUPPORTED_VERSION', 'attachment meta v must be 1');
	if (meta.kind !== 'attachment') fail('UNSUPPORTED_VERSION', 'attachment meta kind must be attachment');
	if (meta.chunkSize !== CHUNK_SIZE) fail('UNSUPPORTED_VERSION', `attachment meta chunkSize must be ${CHUNK_SIZE}`);

	if (!isAttachmentId(meta.attachmentId)) fail('INVALID_INPUT', 'attachmentId must match ^att_[A-Za-z0-9_-]{8,64}$');
	const name = meta.name;
	if (typeof name !== 'string' || name.trim() === '') fail('INVALID_INPUT', 'name must be a non-empty string');
	if (name.length > MAX_NAME_UTF16) fail('INVALID_INPUT', `name must be at most ${MAX_NAME_UTF16} UTF-16 code units`);
	if (FORBIDDEN_NAME_CHARACTERS.test(name)) fail('INVALID_INPUT', 'name must not contain control characters, / or \\');
	if (typeof meta.mime !== 'string' || !MIME_RULE.test(meta.mime)) fail('INVALID_INPUT', 'mime is not a valid lowercase media type');
	if (!isIntegerIn(meta.size, 0, MAX_ATTACHMENT_SIZE)) fail('INVALID_INPUT', `size must be an integer from 0 to ${MAX_ATTACHMENT_SIZE}`);
	b64uDecodeLength(meta.key, KEY_BYTES, 'key');
	b64uDecodeLength(meta.nonce, NONCE_BYTES, 'nonce');
	b64uDecodeLength(meta.digest, DIGEST_BYTES, 'digest');

	const clean: AttachmentMeta = {
		v: 1,
		kind: 'attachment',
		attachmentId: meta.attachmentId,
		name,
		mime: meta.mime,
		size: meta.size,
		key: meta.key as string,
		nonce: meta.nonce as string,
		digest: meta.digest as string,
		chunkSize: CHUNK_SIZE
	};
	if (meta.caption !== undefined && meta.caption !== null) {
		if (typeof meta.caption !== 'string' || meta.caption.length > MAX_CAPTION_UTF16) {
			fail('INVALID_INPUT', `caption must be a string of at most ${MAX_CAPTION_UTF16} UTF-16 code units`);
		}
		clean.caption = meta.caption;
	}
	const hasWidth = meta.width !== undefined && meta.width !== null;
	const hasHeight = meta.height !== undefined && meta.height !== null;
	if (hasWidth !== hasHeight) fail('INVALID_INPUT', 'width and height must be given both or neither');
	if (hasWidth) {
		if (!isIntegerIn(meta.width, 1, MAX_IMAGE_DIMENSION) || !isIntegerIn(meta.height, 1, MAX_IMAGE_DIMENSION)) {
			fail('INVALID_INPUT', `width and height must be integers from 1 to ${MAX_IMAGE_DIMENSION}`);
		}
		clean.width = meta.width;
		clean.height = meta.height;
	}
	return clean;
}

/** Parses the decrypted text of an attachment message and validates it. */
export function parseAttachmentMeta(text: string): AttachmentMeta {
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		return fail('INVALID_INPUT', 'attachment meta is not JSON');
	}
	return validateAttachmentMeta(parsed);
}

/**
 * Receiving side of contract 4.4: parse, validate, and require the meta to name the attachment the
 * event carries in clear; otherwise `KEY_MISMATCH`.
 */
export function parseReceivedAttachmentMeta(text: string, eventAttachmentId: string): AttachmentMeta {
	const meta = parseAttachmentMeta(text);
	if (meta.attachmentId !== eventAttachmentId) fail('KEY_MISMATCH', 'the meta names another attachment than the message');
	return meta;
}
