/**
 * Message envelopes `sc1` (contract 2.5, 4.2, 6.2, 6.5): the AD string, ISO/IEC 7816-4 padding to
 * 256-byte blocks, encryption with XChaCha20-Poly1305 IETF, and decryption whose order of checks
 * decides the error code. Decryption decodes the nonce and the ciphertext straight into libsodium's
 * heap, with the runtime's native base64 decoder once the strict checks of 1.1 have passed.
 */
import { fail } from '../errors';
import { b64uDecode, b64uDecodeInto, b64uEncode, utf8Decode, utf8Encode } from './encoding';
import {
	DOMAIN,
	KEY_BYTES,
	NONCE_BYTES,
	TAG_BYTES,
	ID_RULE,
	isIntegerIn,
	isId,
	MAX_KEY_VERSION,
	requireBytes,
	requireId,
	requireKeyVersion
} from './rules';
import { allocateHeapRegions, rawSodium, sodium, type HeapRegions } from './sodium';

export type SenderType = 'user' | 'company';

export interface Envelope {
	v: 1;
	scheme: 'sc1';
	keyVersion: number;
	clientMessageId: string;
	nonce: string;
	ciphertext: string;
}

export const PADDING_BLOCK = 256;
export const MAX_MESSAGE_TEXT_BYTES = 65_536;
export const MIN_CIPHERTEXT_BYTES = 272;
/** "at most 66 KB" of decoded ciphertext, read as 66 × 1024 (docs/contract-gaps.md §5). */
export const MAX_CIPHERTEXT_BYTES = 66 * 1024;
/** The longest ciphertext a sender may produce: 65,536 bytes of text, padded, plus the tag. */
export const MAX_MESSAGE_CIPHERTEXT_BYTES = 65_536 + PADDING_BLOCK + TAG_BYTES;
/** Longest AD: the domain, two ids of 128 characters, a sender type and a key version. */
const MAX_AD_BYTES = 320;

export interface MessageContext {
	conversationId: string;
	senderType: SenderType;
	clientMessageId: string;
	keyVersion: number;
}

function requireSenderType(value: unknown): SenderType {
	if (value !== 'user' && value !== 'company') fail('INVALID_INPUT', 'senderType must be user or company');
	return value;
}

/** `"Service|v1|msg|" + conversationId + "|" + senderType + "|" + clientMessageId + "|" + keyVersion`. */
export function messageAd(context: MessageContext): string {
	const conversationId = requireId(context.conversationId, 'conversationId');
	const senderType = requireSenderType(context.senderType);
	const clientMessageId = requireId(context.clientMessageId, 'clientMessageId');
	const keyVersion = requireKeyVersion(context.keyVersion);
	return `${DOMAIN}|msg|${conversationId}|${senderType}|${clientMessageId}|${keyVersion}`;
}

/** `ceil((n + 1) / 256) * 256`: 0 → 256, 255 → 256, 256 → 512. */
export function paddedLength(textBytes: number): number {
	return Math.ceil((textBytes + 1) / PADDING_BLOCK) * PADDING_BLOCK;
}

/** `bytes ‖ 0x80 ‖ 0x00…` up to the next multiple of 256. */
export function pad(bytes: Uint8Array): Uint8Array {
	const padded = new Uint8Array(paddedLength(bytes.length));
	padded.set(bytes);
	padded[bytes.length] = 0x80;
	return padded;
}

/** Removes ISO/IEC 7816-4 padding of at most one block; anything else is `BAD_PADDING`. */
export function unpad(padded: Uint8Array): Uint8Array {
	if (padded.length === 0 || padded.length % PADDING_BLOCK !== 0) fail('BAD_PADDING', 'padded length is not a multiple of 256');
	const marker = lastNonZeroIndex(padded);
	// Stryker disable next-line ConditionalExpression: equivalent: at −1 (all zeros) `padded[marker]` is undefined, not 0x80, so the same refusal follows
	if (marker < 0 || padded[marker] !== 0x80) fail('BAD_PADDING', 'padding has no 0x80 marker');
	if (padded.length - marker > PADDING_BLOCK) fail('BAD_PADDING', 'padding is longer than 256 bytes');
	return padded.subarray(0, marker);
}

/** The index of the last byte that is not 0x00, or −1; aligned zeros are skipped four bytes at a time. */
function lastNonZeroIndex(bytes: Uint8Array): number {
	let end = bytes.length;
	// Stryker disable next-line all: equivalent: the word-at-a-time scan only saves time; skipping it leaves the byte loop below to find the same index
	if (bytes.byteOffset % 4 === 0 && end % 4 === 0) {
		const words = new Uint32Array(bytes.buffer, bytes.byteOffset, end / 4);
		let word = words.length;
		// Stryker disable next-line all: equivalent: stopping at any zero word (or not starting) leaves the byte loop below to skip the rest of the zeros
		while (word > 0 && words[word - 1] === 0) word--;
		end = word * 4;
	}
	let index = end - 1;
	// Stryker disable next-line EqualityOperator,ConditionalExpression: equivalent: at index 0 the byte is either the marker (the same result) or zero (no marker either way); at −1 `bytes[-1]` is undefined, not 0x00, so the loop stops there anyway
	while (index >= 0 && bytes[index] === 0x00) index--;
	return index;
}

/** `srv_` + b64u of 16 random bytes (contract 4.2). */
export function newClientMessageId(prefix = 'srv_'): string {
	return prefix + b64uEncode(sodium().randombytes_buf(16));
}

/** What any text padded to 256-byte blocks is encrypted from (messages, the inbox's private records). */
export interface PaddedTextInput {
	text: string;
	conversationKey: Uint8Array;
	/** Only for vectors; otherwise a fresh random nonce is drawn. */
	nonce?: Uint8Array;
}

export interface EncryptMessageInput extends MessageContext, PaddedTextInput {}

/**
 * Contract 6.5 for any text padded to 256-byte blocks (messages, the inbox's private records): at most
 * 65,536 UTF-8 bytes, padded, encrypted with XChaCha20-Poly1305 under `ad` and a fresh nonce (or the
 * given one, for vectors).
 */
export function encryptPaddedText(input: PaddedTextInput, ad: string, what: string): { nonce: string; ciphertext: string } {
	requireBytes(input.conversationKey, KEY_BYTES, 'conversation key');
	const text = utf8Encode(input.text, what);
	if (text.length > MAX_MESSAGE_TEXT_BYTES) {
		fail('INVALID_INPUT', `${what} must be at most ${MAX_MESSAGE_TEXT_BYTES} UTF-8 bytes, got ${text.length}`);
	}
	const nonce = input.nonce ?? sodium().randombytes_buf(NONCE_BYTES);
	requireBytes(nonce, NONCE_BYTES, 'nonce');
	const padded = pad(text);
	const ciphertext = sodium().crypto_aead_xchacha20poly1305_ietf_encrypt(padded, ad, null, nonce, input.conversationKey);
	padded.fill(0);
	return { nonce: b64uEncode(nonce), ciphertext: b64uEncode(ciphertext) };
}

/** Builds an `sc1` envelope (contract 6.5). Text is at most 65,536 UTF-8 bytes. */
export function encryptMessage(input: EncryptMessageInput): Envelope {
	const sealed = encryptPaddedText(input, messageAd(input), 'message text');
	return { v: 1, scheme: 'sc1', keyVersion: input.keyVersion, clientMessageId: input.clientMessageId, ...sealed };
}

export interface DecryptMessageContext {
	conversationKey: Uint8Array;
	/** From the event or the request, never from the envelope. */
	conversationId: string;
	/** `user` in a webhook; the history item's own `senderType` in message history. */
	senderType: SenderType;
}

/** Decrypts an envelope with the exact order of checks of contract 6.2. */
export function decryptMessage(envelope: unknown, context: DecryptMessageContext): string {
	const candidate = (envelope ?? {}) as Record<string, unknown>;
	// 1. version
	if (candidate.v !== 1 || candidate.scheme !== 'sc1') fail('UNSUPPORTED_VERSION', 'envelope must be v 1, scheme sc1');
	// 2. AD from the context and the validated envelope fields
	const ad = messageAd({
		conversationId: context.conversationId,
		senderType: context.senderType,
		clientMessageId: candidate.clientMessageId as string,
		keyVersion: candidate.keyVersion as number
	});
	// 3.–7. nonce, ciphertext length, authentication, padding, strict UTF-8
	return openMessage(candidate, ad, context.conversationKey);
}

/**
 * Steps 3 and 4 of contract 6.2 for any envelope padded to 256-byte blocks (messages, the inbox's private
 * records): a nonce of 24 bytes (`INVALID_INPUT`), a ciphertext of 16 + 256·k bytes up to `maxBytes`
 * (`DECRYPT_FAILED`), and a key of 32 bytes.
 */
export function paddedEnvelopeParts(
	candidate: Record<string, unknown>,
	conversationKey: Uint8Array,
	maxBytes: number
): { nonce: Uint8Array; ciphertext: Uint8Array } {
	const nonce = b64uDecode(candidate.nonce, 'nonce');
	requireNonceLength(nonce.length);
	const ciphertext = b64uDecode(candidate.ciphertext, 'ciphertext');
	requirePaddedCiphertextLength(ciphertext.length, maxBytes);
	requireBytes(conversationKey, KEY_BYTES, 'conversation key');
	return { nonce, ciphertext };
}

function requireNonceLength(length: number): void {
	if (length !== NONCE_BYTES) fail('INVALID_INPUT', `nonce must be ${NONCE_BYTES} bytes, got ${length}`);
}

function requirePaddedCiphertextLength(length: number, maxBytes: number): void {
	if (length < MIN_CIPHERTEXT_BYTES || (length - TAG_BYTES) % PADDING_BLOCK !== 0 || length > maxBytes) {
		fail('DECRYPT_FAILED', `impossible ciphertext length ${length}`);
	}
}

type WorkspaceRegion = 'key' | 'nonce' | 'ad' | 'ciphertext' | 'padded';
let workspace: HeapRegions<WorkspaceRegion> | undefined;
/** Views of the workspace, taken afresh whenever the WASM heap has grown. */
let views: ({ heap: Uint8Array } & Record<WorkspaceRegion, Uint8Array>) | undefined;
const adEncoder = new TextEncoder();

/**
 * Steps 3 to 7 of contract 6.2 in buffers kept in libsodium's WASM heap for the life of the page: the
 * nonce and the ciphertext are decoded straight into the heap, so a history page of a thousand
 * envelopes costs no allocation per message but the text. The key and the plaintext are wiped from
 * the heap before returning.
 */
function openMessage(candidate: Record<string, unknown>, ad: string, conversationKey: Uint8Array): string {
	workspace ??= allocateHeapRegions({
		key: KEY_BYTES,
		nonce: NONCE_BYTES,
		ad: MAX_AD_BYTES,
		ciphertext: MAX_MESSAGE_CIPHERTEXT_BYTES,
		padded: MAX_MESSAGE_CIPHERTEXT_BYTES
	});
	const at = workspace.at;
	const lib = rawSodium();
	const heap = lib.HEAPU8;
	// Stryker disable next-line ConditionalExpression: equivalent: views taken afresh on every call are the same views; keeping them only saves time
	if (views?.heap !== heap) {
		views = {
			heap,
			key: heap.subarray(at.key, at.key + KEY_BYTES),
			nonce: heap.subarray(at.nonce, at.nonce + NONCE_BYTES),
			ad: heap.subarray(at.ad, at.ad + MAX_AD_BYTES),
			ciphertext: heap.subarray(at.ciphertext, at.ciphertext + MAX_MESSAGE_CIPHERTEXT_BYTES),
			padded: heap.subarray(at.padded, at.padded + MAX_MESSAGE_CIPHERTEXT_BYTES)
		};
	}
	// 3.–4. A value too long for its region is not written, and then refused by its length.
	requireNonceLength(b64uDecodeInto(candidate.nonce, views.nonce, 'nonce'));
	const ciphertextLength = b64uDecodeInto(candidate.ciphertext, views.ciphertext, 'ciphertext');
	requirePaddedCiphertextLength(ciphertextLength, MAX_MESSAGE_CIPHERTEXT_BYTES);
	requireBytes(conversationKey, KEY_BYTES, 'conversation key');
	// The AD is ASCII (the domain, ids matching the id rule, a sender type and digits): ad.length bytes.
	adEncoder.encodeInto(ad, views.ad);
	views.key.set(conversationKey);
	const paddedLength = ciphertextLength - TAG_BYTES;
	try {
		const result = lib._crypto_aead_xchacha20poly1305_ietf_decrypt(
			at.padded,
			0,
			0,
			at.ciphertext,
			ciphertextLength,
			0,
			at.ad,
			ad.length,
			0,
			at.nonce,
			at.key
		);
		if (result !== 0) fail('DECRYPT_FAILED', 'the message does not authenticate');
		return utf8Decode(unpad(views.padded.subarray(0, paddedLength)), 'message text');
	} finally {
		views.key.fill(0);
		views.padded.fill(0, 0, paddedLength);
	}
}

/**
 * The shape checks a service may make without the key (contract 4.2 rule 3), or null when the
 * envelope is well-formed. Used by the simulator and before sending.
 */
export function envelopeShapeProblem(envelope: unknown): string | null {
	if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return 'encryption must be an object';
	const candidate = envelope as Record<string, unknown>;
	if (candidate.v !== 1) return 'v must be 1';
	if (candidate.scheme !== 'sc1') return 'scheme must be sc1';
	if (!isIntegerIn(candidate.keyVersion, 1, MAX_KEY_VERSION)) return 'keyVersion must be an integer from 1 to 2^31-1';
	if (!isId(candidate.clientMessageId)) return `clientMessageId must match ${ID_RULE.source}`;
	let nonce: Uint8Array;
	let ciphertext: Uint8Array;
	try {
		nonce = b64uDecode(candidate.nonce, 'nonce');
		ciphertext = b64uDecode(candidate.ciphertext, 'ciphertext');
	} catch (error) {
		return (error as Error).message;
	}
	if (nonce.length !== NONCE_BYTES) return `nonce must be ${NONCE_BYTES} bytes, got ${nonce.length}`;
	if (ciphertext.length < MIN_CIPHERTEXT_BYTES)
		return `ciphertext must be at least ${MIN_CIPHERTEXT_BYTES} bytes, got ${ciphertext.length}`;
	if ((ciphertext.length - TAG_BYTES) % PADDING_BLOCK !== 0) return 'ciphertext length minus 16 must be a multiple of 256';
	// Stryker disable next-line EqualityOperator: equivalent: MAX_CIPHERTEXT_BYTES is not 16 + a multiple of 256, so that length fails the check before
	if (ciphertext.length > MAX_CIPHERTEXT_BYTES) return `ciphertext must be at most ${MAX_CIPHERTEXT_BYTES} bytes, got ${ciphertext.length}`;
	return null;
}
