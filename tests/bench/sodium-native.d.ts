/** The few sodium-native functions the crypto benchmark calls as its native reference (it ships no types). */
declare module 'sodium-native' {
	const sodiumNative: {
		crypto_generichash_STATEBYTES: number;
		crypto_generichash_init(state: Buffer, key: Buffer | null, outputLength: number): void;
		crypto_generichash_update(state: Buffer, input: Uint8Array): void;
		crypto_generichash_final(state: Buffer, output: Uint8Array): void;
		crypto_aead_xchacha20poly1305_ietf_decrypt(
			message: Uint8Array,
			nsec: null,
			ciphertext: Uint8Array,
			additionalData: Uint8Array,
			nonce: Uint8Array,
			key: Uint8Array
		): number;
		crypto_box_seal_open(message: Uint8Array, ciphertext: Uint8Array, publicKey: Uint8Array, secretKey: Uint8Array): boolean;
	};
	export default sodiumNative;
}
