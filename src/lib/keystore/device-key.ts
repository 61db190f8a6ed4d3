/**
 * The device layer of the key store: the passphrase-sealed secret is encrypted once
 * more with AES-256-GCM under a non-extractable WebCrypto key that lives in IndexedDB, so page
 * script can use it in this browser but never read it out, and a stored record is useless elsewhere.
 */
import { b64uDecode, b64uDecodeLength, b64uEncode, utf8Encode } from '../crypto/encoding';
import { ContractError, fail } from '../errors';

const IV_BYTES = 12;

/** AES-GCM output; b64u strings. */
export interface DeviceSealed {
	iv: string;
	ciphertext: string;
}

/** WebCrypto's typings want bytes over a plain ArrayBuffer; ours always are. */
const plain = (bytes: Uint8Array) => bytes as Uint8Array<ArrayBuffer>;

function subtle(): SubtleCrypto {
	const api = globalThis.crypto?.subtle;
	if (!api) fail('STORAGE_UNAVAILABLE', 'WebCrypto is unavailable: the inbox must be served over HTTPS (or from localhost)');
	return api;
}

/** A fresh AES-256-GCM key that WebCrypto refuses to export. */
export async function generateDeviceKey(): Promise<CryptoKey> {
	return subtle().generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

/** The device layer of a large record (the search index): raw bytes in IndexedDB, no base64. */
export interface DeviceSealedBytes {
	iv: Uint8Array;
	ciphertext: ArrayBuffer;
}

export async function sealBytesForDevice(deviceKey: CryptoKey, plaintext: Uint8Array, context: string): Promise<DeviceSealedBytes> {
	const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
	const ciphertext = await subtle().encrypt(
		{ name: 'AES-GCM', iv, additionalData: plain(utf8Encode(context)) },
		deviceKey,
		plain(plaintext)
	);
	return { iv, ciphertext };
}

/** Fails with `STORAGE_UNAVAILABLE` when the record was not sealed by this browser's device key, or was changed. */
export async function openBytesForDevice(deviceKey: CryptoKey, sealed: DeviceSealedBytes, context: string): Promise<Uint8Array> {
	if (!(sealed?.iv instanceof Uint8Array) || sealed.iv.length !== IV_BYTES || !(sealed.ciphertext instanceof ArrayBuffer)) {
		fail('STORAGE_UNAVAILABLE', 'the stored record is not sealed bytes');
	}
	try {
		return new Uint8Array(
			await subtle().decrypt(
				{ name: 'AES-GCM', iv: plain(sealed.iv), additionalData: plain(utf8Encode(context)) },
				deviceKey,
				sealed.ciphertext
			)
		);
	} catch {
		return fail('STORAGE_UNAVAILABLE', "the stored record was not sealed by this browser's device key");
	}
}

export async function sealForDevice(deviceKey: CryptoKey, plaintext: Uint8Array, context: string): Promise<DeviceSealed> {
	const { iv, ciphertext } = await sealBytesForDevice(deviceKey, plaintext, context);
	return { iv: b64uEncode(iv), ciphertext: b64uEncode(new Uint8Array(ciphertext)) };
}

/** Fails with `STORAGE_UNAVAILABLE` when the record was not sealed by this browser's device key. */
export async function openForDevice(deviceKey: CryptoKey, sealed: DeviceSealed, context: string): Promise<Uint8Array> {
	const iv = b64uDecodeLength(sealed?.iv, IV_BYTES, 'device iv');
	// Stryker disable next-line OptionalChaining: equivalent: without a record, decoding sealed?.iv on the line before has failed already
	const ciphertext = b64uDecode(sealed?.ciphertext, 'device ciphertext');
	try {
		return new Uint8Array(
			await subtle().decrypt({ name: 'AES-GCM', iv: plain(iv), additionalData: plain(utf8Encode(context)) }, deviceKey, plain(ciphertext))
		);
	} catch (error) {
		if (error instanceof ContractError) throw error;
		return fail('STORAGE_UNAVAILABLE', "the stored key was not sealed by this browser's device key; restore it from a backup");
	}
}
