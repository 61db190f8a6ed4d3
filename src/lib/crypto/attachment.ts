/**
 * Chunked attachment encryption (contract 2.6, 4.3, 4.4, 6.5). Both directions are streaming:
 * pieces of any size go in, each 65,536-byte chunk (65,552 encrypted) is processed as soon as it is
 * whole, on buffers reused inside libsodium's WASM heap, with the BLAKE2b digest kept incrementally.
 * The decryptor releases the plaintext only after the length and digest checks; any failure is
 * `DECRYPT_FAILED` and the partial plaintext is wiped.
 */
import { ContractError, fail } from '../errors';
import { CHUNK_SIZE, MAX_ATTACHMENT_SIZE, isAttachmentId, type AttachmentMeta, validateAttachmentMeta } from './attachment-meta';
import { b64uDecodeLength, b64uEncode, constantTimeEqual, utf8Encode } from './encoding';
import { DIGEST_BYTES, DOMAIN, KEY_BYTES, NONCE_BYTES, TAG_BYTES, isIntegerIn, requireBytes } from './rules';
import { allocateHeapRegions, rawSodium, sodium, type HeapRegions, type RawSodium } from './sodium';

export const ENCRYPTED_CHUNK_SIZE = CHUNK_SIZE + TAG_BYTES;
export const MAX_ATTACHMENT_CIPHERTEXT = 26_220_800;
/** Longest AD: the domain, an attachment id of 68 characters, a chunk index and the final flag. */
const MAX_AD_BYTES = 160;

/** `max(1, ceil(size / 65536))`: an empty file is one chunk of 0 bytes. */
export function attachmentChunkCount(size: number): number {
	return Math.max(1, Math.ceil(size / CHUNK_SIZE));
}

/** `size + chunks * 16`. */
export function attachmentCiphertextLength(size: number): number {
	if (!isIntegerIn(size, 0, MAX_ATTACHMENT_SIZE)) fail('INVALID_INPUT', `size must be an integer from 0 to ${MAX_ATTACHMENT_SIZE}`);
	return size + attachmentChunkCount(size) * TAG_BYTES;
}

/** The part of every chunk's AD before its index: `"Service|v1|att|" + attachmentId + "|"`. */
function chunkAdPrefix(attachmentId: string): string {
	return `${DOMAIN}|att|${attachmentId}|`;
}

/** `AD_i = "Service|v1|att|" + attachmentId + "|" + i + "|" + ("1" if last else "0")`. */
export function attachmentChunkAd(attachmentId: string, index: number, last: boolean): string {
	return `${chunkAdPrefix(attachmentId)}${index}|${last ? '1' : '0'}`;
}

/**
 * XChaCha20-Poly1305 of single chunks under F (contract 6.5), on buffers reused inside the WASM heap.
 * Views on the heap are taken afresh on every use, since the heap may grow and detach older views.
 */
export class ChunkCipher {
	private readonly lib: RawSodium = rawSodium();
	private readonly regions: HeapRegions<'key' | 'nonce' | 'ad' | 'input' | 'output'>;
	readonly input: number;
	readonly output: number;
	private readonly nonceBase: Uint8Array;
	/** `"Service|v1|att|" + attachmentId + "|"`, the part of AD_i shared by every chunk. */
	private readonly adPrefix: Uint8Array;

	constructor(fileKey: Uint8Array, nonceBase: Uint8Array, attachmentId: string) {
		this.regions = allocateHeapRegions({
			key: KEY_BYTES,
			nonce: NONCE_BYTES,
			ad: MAX_AD_BYTES,
			input: ENCRYPTED_CHUNK_SIZE,
			output: ENCRYPTED_CHUNK_SIZE
		});
		({ input: this.input, output: this.output } = this.regions.at);
		this.heap.set(fileKey, this.regions.at.key);
		this.nonceBase = nonceBase.slice();
		this.adPrefix = utf8Encode(chunkAdPrefix(attachmentId));
	}

	get heap(): Uint8Array {
		return this.lib.HEAPU8;
	}

	/** Writes nonce_i = nonceBase[0..16) ‖ u64be(i) and AD_i into the heap; returns the AD length. */
	private prepare(index: number, last: boolean): number {
		const heap = this.heap;
		const { nonce, ad } = this.regions.at;
		heap.set(this.nonceBase.subarray(0, 16), nonce);
		// u64be(i): chunk indexes stay far below 2^32, so the high word is zero.
		heap.fill(0, nonce + 16, nonce + 20);
		heap[nonce + 20] = index >>> 24;
		heap[nonce + 21] = (index >>> 16) & 255;
		heap[nonce + 22] = (index >>> 8) & 255;
		heap[nonce + 23] = index & 255;
		// AD_i = prefix ‖ decimal(i) ‖ "|" ‖ ("1" | "0"), all ASCII.
		heap.set(this.adPrefix, ad);
		let cursor = ad + this.adPrefix.length;
		const digits = String(index);
		for (let d = 0; d < digits.length; d++) heap[cursor++] = digits.charCodeAt(d);
		heap[cursor++] = 0x7c; // "|"
		heap[cursor++] = last ? 0x31 : 0x30;
		return cursor - ad;
	}

	/** Decrypts `length` bytes at `input` into `output`; returns false when the chunk does not authenticate. */
	decrypt(index: number, last: boolean, length: number): boolean {
		const adLength = this.prepare(index, last);
		const { input, output, ad, nonce, key } = this.regions.at;
		return this.lib._crypto_aead_xchacha20poly1305_ietf_decrypt(output, 0, 0, input, length, 0, ad, adLength, 0, nonce, key) === 0;
	}

	/** Encrypts `length` plaintext bytes at `input` into `output` (length + 16 bytes). */
	encrypt(index: number, last: boolean, length: number): void {
		const adLength = this.prepare(index, last);
		const { input, output, ad, nonce, key } = this.regions.at;
		this.lib._crypto_aead_xchacha20poly1305_ietf_encrypt(output, 0, input, length, 0, ad, adLength, 0, 0, nonce, key);
	}

	/**
	 * Decrypts the `length` bytes at the start of `chunk` in place: on success its first `length - 16`
	 * bytes are the plaintext; on failure the chunk is left as it was and false is returned.
	 */
	decryptInPlace(index: number, last: boolean, chunk: Uint8Array, length: number): boolean {
		this.heap.set(chunk.subarray(0, length), this.input);
		if (!this.decrypt(index, last, length)) return false;
		chunk.set(this.heap.subarray(this.output, this.output + length - TAG_BYTES));
		this.heap.fill(0, this.output, this.output + length - TAG_BYTES);
		return true;
	}

	/** Encrypts the `length` plaintext bytes at the start of `chunk` in place; `chunk` must hold `length + 16`. */
	encryptInPlace(index: number, last: boolean, chunk: Uint8Array, length: number): void {
		this.heap.set(chunk.subarray(0, length), this.input);
		this.encrypt(index, last, length);
		chunk.set(this.heap.subarray(this.output, this.output + length + TAG_BYTES));
		this.heap.fill(0, this.input, this.input + length);
	}

	/** Wipes the key and the buffers, then frees them. Idempotent. */
	release(): void {
		this.regions.release();
	}
}

/** BLAKE2b-256 of a stream (the meta's `digest`), its state inside the WASM heap. */
export class IncrementalDigest {
	private readonly lib: RawSodium = rawSodium();
	private readonly regions: HeapRegions<'state' | 'digest' | 'scratch'>;

	constructor() {
		this.regions = allocateHeapRegions({ state: this.lib._crypto_generichash_statebytes(), digest: DIGEST_BYTES, scratch: CHUNK_SIZE });
		this.lib._crypto_generichash_init(this.regions.at.state, 0, 0, DIGEST_BYTES);
	}

	/** Hashes bytes already in the heap. */
	updateAt(pointer: number, length: number): void {
		this.lib._crypto_generichash_update(this.regions.at.state, pointer, length, 0);
	}

	/** Hashes bytes from outside the heap, through its scratch buffer (wiped at release). */
	update(bytes: Uint8Array): void {
		const { scratch } = this.regions.at;
		// Stryker disable next-line EqualityOperator: equivalent: one more turn past the end hashes zero bytes
		for (let offset = 0; offset < bytes.length; offset += CHUNK_SIZE) {
			const slice = bytes.subarray(offset, offset + CHUNK_SIZE);
			this.lib.HEAPU8.set(slice, scratch);
			this.updateAt(scratch, slice.length);
		}
	}

	final(): Uint8Array {
		const { state, digest } = this.regions.at;
		this.lib._crypto_generichash_final(state, digest, DIGEST_BYTES);
		return this.lib.HEAPU8.slice(digest, digest + DIGEST_BYTES);
	}

	/** Wipes the state and frees it. Idempotent. */
	release(): void {
		this.regions.release();
	}
}

/** Where the assembler writes the next bytes of the current chunk. */
export type ChunkTarget = () => { bytes: Uint8Array; offset: number };

/** Splits a stream of pieces into chunks of known lengths and hands each whole chunk over. */
export class ChunkAssembler {
	private chunkIndex = 0;
	private filled = 0;
	consumed = 0;

	constructor(
		private readonly chunkCount: number,
		private readonly chunkLength: (index: number) => number,
		private readonly target: ChunkTarget,
		private readonly onChunk: (index: number, last: boolean, length: number) => void
	) {}

	get done(): boolean {
		return this.chunkIndex === this.chunkCount;
	}

	/** Returns false if the piece goes beyond the expected total. */
	push(piece: Uint8Array): boolean {
		let offset = 0;
		while (offset < piece.length) {
			if (this.done) return false;
			const want = this.chunkLength(this.chunkIndex) - this.filled;
			const take = Math.min(want, piece.length - offset);
			const { bytes, offset: start } = this.target();
			bytes.set(piece.subarray(offset, offset + take), start + this.filled);
			this.filled += take;
			offset += take;
			this.consumed += take;
			this.completeIfWhole();
		}
		return true;
	}

	/** A chunk of length 0 (the empty file) is whole before any byte arrives. */
	completeIfWhole(): void {
		if (!this.done && this.filled === this.chunkLength(this.chunkIndex)) {
			const index = this.chunkIndex;
			this.chunkIndex++;
			this.filled = 0;
			this.onChunk(index, index === this.chunkCount - 1, this.chunkLength(index));
		}
	}
}

/** The encrypted chunks' lengths of a file of `size` bytes: 65,552 each, the last one shorter. */
export function encryptedChunkLengths(size: number): (index: number) => number {
	const chunks = attachmentChunkCount(size);
	const lastLength = attachmentCiphertextLength(size) - (chunks - 1) * ENCRYPTED_CHUNK_SIZE;
	return (index) => (index === chunks - 1 ? lastLength : ENCRYPTED_CHUNK_SIZE);
}

/** The plaintext chunks' lengths of a file of `size` bytes: 65,536 each, the last one shorter. */
export function plainChunkLengths(size: number): (index: number) => number {
	const chunks = attachmentChunkCount(size);
	const lastLength = size - (chunks - 1) * CHUNK_SIZE;
	return (index) => (index === chunks - 1 ? lastLength : CHUNK_SIZE);
}

export interface AttachmentKeys {
	/** F, 32 bytes. */
	fileKey: Uint8Array;
	/** 24 bytes. */
	nonceBase: Uint8Array;
}

/** F and the nonce base of validated meta, decoded (the caller wipes F). */
export function attachmentKeysOf(meta: AttachmentMeta): AttachmentKeys {
	return { fileKey: b64uDecodeLength(meta.key, KEY_BYTES, 'key'), nonceBase: b64uDecodeLength(meta.nonce, NONCE_BYTES, 'nonce') };
}

/** Whether a computed BLAKE2b-256 equals the meta's `digest`, compared in constant time. */
export function digestMatches(digest: Uint8Array, meta: AttachmentMeta): boolean {
	return constantTimeEqual(digest, b64uDecodeLength(meta.digest, DIGEST_BYTES, 'digest'));
}

export interface AttachmentEncryptionInput {
	attachmentId: string;
	size: number;
	/** Only for vectors; otherwise random. */
	fileKey?: Uint8Array;
	nonceBase?: Uint8Array;
}

/** Checks the id and draws F and the nonce base (or checks the given ones); the returned keys are copies. */
export function newAttachmentKeys(input: AttachmentEncryptionInput): AttachmentKeys {
	if (!isAttachmentId(input.attachmentId)) fail('INVALID_INPUT', 'attachmentId must match ^att_[A-Za-z0-9_-]{8,64}$');
	const fileKey = input.fileKey ?? sodium().randombytes_buf(KEY_BYTES);
	const nonceBase = input.nonceBase ?? sodium().randombytes_buf(NONCE_BYTES);
	requireBytes(fileKey, KEY_BYTES, 'file key');
	requireBytes(nonceBase, NONCE_BYTES, 'nonceBase');
	return { fileKey: fileKey.slice(), nonceBase: nonceBase.slice() };
}

/**
 * Streaming decryption against validated meta. Push ciphertext pieces as they arrive, then
 * `finish()` returns the plaintext only when the length and the digest check; any failure throws
 * `DECRYPT_FAILED` and wipes what was decrypted.
 */
export class AttachmentDecryptor {
	readonly meta: AttachmentMeta;
	readonly ciphertextLength: number;
	private readonly plaintext: Uint8Array;
	private readonly cipher: ChunkCipher;
	private readonly digest: IncrementalDigest;
	private readonly assembler: ChunkAssembler;
	private written = 0;
	private failed: ContractError | undefined;
	private finished = false;

	constructor(meta: AttachmentMeta | unknown) {
		this.meta = validateAttachmentMeta(meta);
		const { size } = this.meta;
		this.ciphertextLength = attachmentCiphertextLength(size);
		const { fileKey, nonceBase } = attachmentKeysOf(this.meta);
		this.plaintext = new Uint8Array(size);
		this.cipher = new ChunkCipher(fileKey, nonceBase, this.meta.attachmentId);
		fileKey.fill(0);
		this.digest = new IncrementalDigest();
		this.assembler = new ChunkAssembler(
			attachmentChunkCount(size),
			encryptedChunkLengths(size),
			() => ({ bytes: this.cipher.heap, offset: this.cipher.input }),
			(index, last, length) => this.decryptChunk(index, last, length)
		);
	}

	/** Ciphertext bytes consumed so far, for progress. */
	get bytesReceived(): number {
		return this.assembler.consumed;
	}

	private decryptChunk(index: number, last: boolean, length: number): void {
		if (!this.cipher.decrypt(index, last, length)) this.abort(`chunk ${index} does not authenticate`);
		const plainLength = length - TAG_BYTES;
		this.digest.updateAt(this.cipher.output, plainLength);
		this.plaintext.set(this.cipher.heap.subarray(this.cipher.output, this.cipher.output + plainLength), this.written);
		this.written += plainLength;
	}

	/** Throws the first failure, or that the decryptor has finished: its buffers are released by then. */
	private ensureRunning(): void {
		if (this.failed) throw this.failed;
		if (this.finished) fail('DECRYPT_FAILED', 'the decryptor has finished');
	}

	/** Consumes the next piece of ciphertext, of any size. */
	push(piece: Uint8Array): void {
		this.ensureRunning();
		if (!this.assembler.push(piece)) this.abort('the ciphertext is longer than the meta size allows');
	}

	/** Checks the length and the digest, then releases the plaintext. */
	finish(): Uint8Array {
		this.ensureRunning();
		this.assembler.completeIfWhole();
		// overflow is refused as it comes, so a whole ciphertext is exactly the expected length
		if (!this.assembler.done) {
			this.abort(`the ciphertext is ${this.bytesReceived} bytes, expected ${this.ciphertextLength}`);
		}
		if (!digestMatches(this.digest.final(), this.meta)) this.abort('the plaintext digest differs from the meta');
		this.finished = true;
		this.release();
		return this.plaintext;
	}

	/** Stops, wipes everything and throws `DECRYPT_FAILED`. Safe to call after a failure. */
	abort(reason = 'aborted'): never {
		this.failed ??= new ContractError('DECRYPT_FAILED', `attachment: ${reason}`);
		this.plaintext.fill(0);
		this.release();
		throw this.failed;
	}

	private release(): void {
		this.cipher.release();
		this.digest.release();
	}
}

/** One-shot decryption of a whole ciphertext (contract 6.5). */
export function decryptAttachment(ciphertext: Uint8Array, meta: AttachmentMeta | unknown): Uint8Array {
	const decryptor = new AttachmentDecryptor(meta);
	decryptor.push(ciphertext);
	return decryptor.finish();
}

export interface AttachmentEncryption extends AttachmentKeys {
	ciphertext: Uint8Array;
	/** b64u BLAKE2b-256 of the plaintext. */
	digest: string;
}

/**
 * Streaming encryption of a file of known size into one preallocated ciphertext buffer. Push
 * plaintext pieces of any size; `finish()` returns the ciphertext and the meta's key, nonce and
 * digest.
 */
export class AttachmentEncryptor {
	readonly size: number;
	readonly ciphertext: Uint8Array;
	private readonly keys: AttachmentKeys;
	private readonly cipher: ChunkCipher;
	private readonly digest: IncrementalDigest;
	private readonly assembler: ChunkAssembler;
	private written = 0;

	constructor(input: AttachmentEncryptionInput) {
		this.keys = newAttachmentKeys(input);
		this.size = input.size;
		this.ciphertext = new Uint8Array(attachmentCiphertextLength(input.size));
		this.cipher = new ChunkCipher(this.keys.fileKey, this.keys.nonceBase, input.attachmentId);
		this.digest = new IncrementalDigest();
		this.assembler = new ChunkAssembler(
			attachmentChunkCount(input.size),
			plainChunkLengths(input.size),
			() => ({ bytes: this.cipher.heap, offset: this.cipher.input }),
			(index, last, length) => this.encryptChunk(index, last, length)
		);
	}

	/** Plaintext bytes consumed so far, for progress. */
	get bytesConsumed(): number {
		return this.assembler.consumed;
	}

	private encryptChunk(index: number, last: boolean, length: number): void {
		this.digest.updateAt(this.cipher.input, length);
		this.cipher.encrypt(index, last, length);
		const encrypted = length + TAG_BYTES;
		this.ciphertext.set(this.cipher.heap.subarray(this.cipher.output, this.cipher.output + encrypted), this.written);
		this.written += encrypted;
	}

	push(piece: Uint8Array): void {
		if (!this.assembler.push(piece)) {
			this.release();
			fail('INVALID_INPUT', `the file is longer than its declared size ${this.size}`);
		}
	}

	finish(): AttachmentEncryption {
		this.assembler.completeIfWhole();
		if (!this.assembler.done) {
			this.release();
			fail('INVALID_INPUT', `the file is shorter than its declared size ${this.size}`);
		}
		const digest = b64uEncode(this.digest.final());
		this.release();
		return { ciphertext: this.ciphertext, digest, ...this.keys };
	}

	private release(): void {
		this.cipher.release();
		this.digest.release();
	}
}

/** One-shot encryption of a whole file (contract 6.5); keys are random unless given (vectors). */
export function encryptAttachment(
	plaintext: Uint8Array,
	input: { attachmentId: string; fileKey?: Uint8Array; nonceBase?: Uint8Array }
): AttachmentEncryption {
	const encryptor = new AttachmentEncryptor({ ...input, size: plaintext.length });
	encryptor.push(plaintext);
	return encryptor.finish();
}

/** The meta of an encrypted file, validated as the receiver will validate it. */
export function buildAttachmentMeta(input: {
	attachmentId: string;
	name: string;
	mime: string;
	size: number;
	encryption: AttachmentEncryption;
	caption?: string;
	width?: number;
	height?: number;
}): AttachmentMeta {
	return validateAttachmentMeta({
		v: 1,
		kind: 'attachment',
		attachmentId: input.attachmentId,
		name: input.name,
		mime: input.mime,
		size: input.size,
		key: b64uEncode(input.encryption.fileKey),
		nonce: b64uEncode(input.encryption.nonceBase),
		digest: input.encryption.digest,
		chunkSize: CHUNK_SIZE,
		caption: input.caption,
		width: input.width,
		height: input.height
	});
}
