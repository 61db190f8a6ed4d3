/**
 * Loads libsodium (WASM, sumo build) once for the whole core. Every other module calls `sodium()`
 * synchronously after `await initCrypto()` has resolved, in Node and in a Web Worker alike.
 */
import sodiumModule from 'libsodium-wrappers-sumo';

export type Sodium = typeof sodiumModule;

/** The raw Emscripten exports we drive directly on reused heap buffers (attachment streaming). */
export interface RawSodium {
	HEAPU8: Uint8Array;
	_malloc(size: number): number;
	_free(pointer: number): void;
	_crypto_aead_xchacha20poly1305_ietf_decrypt(
		message: number,
		messageLengthOut: number,
		secretNonce: number,
		ciphertext: number,
		ciphertextLengthLow: number,
		ciphertextLengthHigh: number,
		additionalData: number,
		additionalDataLengthLow: number,
		additionalDataLengthHigh: number,
		publicNonce: number,
		key: number
	): number;
	_crypto_aead_xchacha20poly1305_ietf_encrypt(
		ciphertext: number,
		ciphertextLengthOut: number,
		message: number,
		messageLengthLow: number,
		messageLengthHigh: number,
		additionalData: number,
		additionalDataLengthLow: number,
		additionalDataLengthHigh: number,
		secretNonce: number,
		publicNonce: number,
		key: number
	): number;
	_crypto_generichash_statebytes(): number;
	_crypto_generichash_init(state: number, key: number, keyLength: number, outLength: number): number;
	_crypto_generichash_update(state: number, input: number, inputLengthLow: number, inputLengthHigh: number): number;
	_crypto_generichash_final(state: number, out: number, outLength: number): number;
}

let loaded: Sodium | undefined;
let loading: Promise<Sodium> | undefined;

/** Resolves once libsodium's WASM is instantiated; safe to call many times. */
export function initCrypto(): Promise<Sodium> {
	loading ??= sodiumModule.ready.then(() => {
		loaded = sodiumModule;
		return sodiumModule;
	});
	return loading;
}

/** The ready libsodium; throws if `initCrypto()` has not resolved yet. */
export function sodium(): Sodium {
	if (!loaded) throw new Error('libsodium is not ready: await initCrypto() first');
	return loaded;
}

export function rawSodium(): RawSodium {
	return (sodium() as unknown as { libsodium: RawSodium }).libsodium;
}

export interface HeapRegions<Name extends string> {
	/** Byte offsets into `rawSodium().HEAPU8`, each region 64-byte aligned. */
	readonly at: Record<Name, number>;
	/** Wipes every region, then frees them. */
	release(): void;
}

/**
 * Allocates named regions of libsodium's WASM heap in one block, for code that drives the raw
 * functions on reused buffers. Views of the heap must be taken afresh after any allocation, since
 * the heap may grow and detach older views.
 */
export function allocateHeapRegions<Name extends string>(sizes: Record<Name, number>): HeapRegions<Name> {
	const lib = rawSodium();
	const names = Object.keys(sizes) as Name[];
	const total = names.reduce((sum, name) => sum + sizes[name] + 64, 64);
	const block = lib._malloc(total);
	if (!block) throw new Error('libsodium: out of WASM memory');
	const at = {} as Record<Name, number>;
	let cursor = (block + 63) & ~63; // the BLAKE2b state is declared 64-byte aligned
	for (const name of names) {
		at[name] = cursor;
		cursor = (cursor + sizes[name] + 63) & ~63;
	}
	let released = false;
	return {
		at,
		release() {
			if (released) return;
			released = true;
			lib.HEAPU8.fill(0, block, block + total);
			lib._free(block);
		}
	};
}
