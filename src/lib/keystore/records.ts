/**
 * Key records of the key store: a secret sealed under the passphrase layer, that layer
 * sealed under the device key, and the way back with the check that the secret belongs to the
 * stored public key (as contract 2.1 asks of key files). Pure, given the device key.
 */
import { b64uDecode, b64uEncode, concatBytes, constantTimeEqual } from '../crypto/encoding';
import { fail } from '../errors';
import { checkEd25519SecretKey, fingerprintDisplay, x25519PublicKey } from '../crypto/keys';
import { NONCE_BYTES, TAG_BYTES } from '../crypto/rules';
import { passphraseContext } from './backup';
import { openForDevice, sealForDevice } from './device-key';
import { openWithPassphrase, sealWithPassphrase, type PassphraseSealed } from './passphrase';
import { KEY_RECORD_FORMAT, type KeyKind, type StoredKeyRecord } from './schema';

/** The public values of a stored key: all the page ever learns about it. */
export interface KeyInfo {
	kind: KeyKind;
	/** b64u. */
	publicKey: string;
	/** Contract 2.2 fingerprint of the public key, in the display form (16 groups of 4 hex digits). */
	fingerprint: string;
	agentKeyId?: string;
	createdAt: string;
	updatedAt: string;
}

/** A key opened inside the worker: its public values and the secret, which stays in the worker. */
export interface OpenedKey {
	info: KeyInfo;
	publicKey: Uint8Array;
	/** 32 bytes (X25519) or 64 bytes (Ed25519, libsodium layout). */
	secretKey: Uint8Array;
}

/** The public part of a record, which both layers bind the secret to. */
export type RecordBase = Pick<StoredKeyRecord, 'kind' | 'publicKey' | 'agentKeyId' | 'createdAt'>;

const SECRET_BYTES: Record<KeyKind, number> = { agent: 32, signing: 64 };

export function describe(record: RecordBase & Pick<StoredKeyRecord, 'updatedAt'>): KeyInfo {
	return {
		kind: record.kind,
		publicKey: record.publicKey,
		fingerprint: fingerprintDisplay(b64uDecode(record.publicKey, 'publicKey')),
		...(record.agentKeyId ? { agentKeyId: record.agentKeyId } : {}),
		createdAt: record.createdAt,
		updatedAt: record.updatedAt
	};
}

/** The secret must belong to the public key it is stored with; otherwise the record is not ours. */
export function checkPair(kind: KeyKind, secretKey: Uint8Array, publicKey: Uint8Array): void {
	if (secretKey.length !== SECRET_BYTES[kind]) fail('INVALID_INPUT', `the ${kind} secret key must be ${SECRET_BYTES[kind]} bytes`);
	if (kind === 'signing') checkEd25519SecretKey(secretKey, publicKey);
	else if (!constantTimeEqual(x25519PublicKey(secretKey), publicKey))
		fail('INVALID_INPUT', 'the agent secret key does not match its public key');
}

function deviceContext(kind: KeyKind, publicKey: string, salt: string): string {
	return `inbox-keystore|v1|device|${kind}|${publicKey}|${salt}`;
}

/** Puts a passphrase layer under the device key, as a record of today's format. */
export async function recordOf(deviceKey: CryptoKey, base: RecordBase, layer: PassphraseSealed): Promise<StoredKeyRecord> {
	const innerBytes = concatBytes(b64uDecode(layer.nonce, 'nonce'), b64uDecode(layer.box, 'box'));
	const sealed = await sealForDevice(deviceKey, innerBytes, deviceContext(base.kind, base.publicKey, layer.kdf.salt));
	return {
		kind: base.kind,
		format: KEY_RECORD_FORMAT,
		publicKey: base.publicKey,
		...(base.agentKeyId ? { agentKeyId: base.agentKeyId } : {}),
		createdAt: base.createdAt,
		updatedAt: new Date().toISOString(),
		kdf: layer.kdf,
		sealed
	};
}

/** Seals `secretKey` under the passphrase (fresh salt and nonce, today's parameters), then under the device key. */
export function sealRecord(deviceKey: CryptoKey, base: RecordBase, secretKey: Uint8Array, passphrase: string): Promise<StoredKeyRecord> {
	return recordOf(deviceKey, base, sealWithPassphrase(secretKey, passphrase, passphraseContext(base.kind, base.publicKey)));
}

/** Removes the device layer: the passphrase layer as it would stand in a backup. */
export async function passphraseLayerOf(deviceKey: CryptoKey, record: StoredKeyRecord): Promise<PassphraseSealed> {
	const innerBytes = await openForDevice(deviceKey, record.sealed, deviceContext(record.kind, record.publicKey, record.kdf.salt));
	if (innerBytes.length !== NONCE_BYTES + SECRET_BYTES[record.kind] + TAG_BYTES)
		fail('STORAGE_UNAVAILABLE', `the stored ${record.kind} key is damaged`);
	return { kdf: record.kdf, nonce: b64uEncode(innerBytes.subarray(0, NONCE_BYTES)), box: b64uEncode(innerBytes.subarray(NONCE_BYTES)) };
}

/** Opens both layers (`STORAGE_UNAVAILABLE`, then `WRONG_PASSPHRASE`) and checks the pair. */
export async function openRecord(deviceKey: CryptoKey, record: StoredKeyRecord, passphrase: string): Promise<OpenedKey> {
	const layer = await passphraseLayerOf(deviceKey, record);
	const secretKey = openWithPassphrase(layer, passphrase, passphraseContext(record.kind, record.publicKey));
	const publicKey = b64uDecode(record.publicKey, 'publicKey');
	checkPair(record.kind, secretKey, publicKey);
	return { info: describe(record), publicKey, secretKey };
}
