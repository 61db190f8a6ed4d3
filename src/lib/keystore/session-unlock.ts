/**
 * Unlock once per browser session (docs/crypto-worker.md "Unlock once per browser session";
 * docs/threat-model.md "A stolen laptop", "Script in the page"): the unlocked agent key, sealed for the
 * other tabs and reloads of the same browser session. Two layers, like a key record: XChaCha20-Poly1305
 * under a key derived from the server's 32-byte share of the session (which the server gives only to
 * the session's tabs while one is open, and drops at lock and sign-out), then AES-GCM under this
 * browser's non-extractable device key. The record alone opens nothing: without the server's share it
 * is ciphertext, and the server never sees it.
 */
import { b64uDecode, concatBytes, utf8Encode } from '../crypto/encoding';
import { NONCE_BYTES } from '../crypto/rules';
import { sodium } from '../crypto/sodium';
import { fail } from '../errors';
import { openBytesForDevice, sealBytesForDevice } from './device-key';
import { checkPair } from './records';
import type { KeyStoreDatabase, StoredKeyRecord } from './schema';

/** The server's share of a session (src/lib/server/auth/unlock-share.ts makes it). */
export const UNLOCK_SHARE_BYTES = 32;
const CONTEXT = 'inbox-unlock|v1';

/** The sealing key: BLAKE2b-256 keyed with the share, of the context and the key it seals. */
function sealingKey(share: Uint8Array, record: StoredKeyRecord): Uint8Array {
	if (share.length !== UNLOCK_SHARE_BYTES) fail('INVALID_INPUT', `the unlock share must be ${UNLOCK_SHARE_BYTES} bytes`);
	return sodium().crypto_generichash(32, utf8Encode(`${CONTEXT}|${record.kind}|${record.publicKey}`), share);
}

function additionalData(record: StoredKeyRecord): Uint8Array {
	return utf8Encode(`${CONTEXT}|${record.kind}|${record.publicKey}`);
}

export class SessionUnlock {
	constructor(
		private readonly database: () => Promise<KeyStoreDatabase>,
		private readonly deviceKey: () => Promise<CryptoKey>
	) {}

	/** Seals the opened secret of `record` for this browser session's other tabs. */
	async save(record: StoredKeyRecord, secretKey: Uint8Array, share: Uint8Array): Promise<void> {
		const key = sealingKey(share, record);
		const nonce = sodium().randombytes_buf(NONCE_BYTES);
		try {
			const box = sodium().crypto_aead_xchacha20poly1305_ietf_encrypt(secretKey, additionalData(record), null, nonce, key);
			const sealed = await sealBytesForDevice(await this.deviceKey(), concatBytes(nonce, box), CONTEXT);
			await (
				await this.database()
			).put('unlock', { kind: record.kind, publicKey: record.publicKey, sealed, updatedAt: new Date().toISOString() });
		} finally {
			key.fill(0);
		}
	}

	/**
	 * The secret of `record` sealed for this session, or null: none saved, saved for another key, or a
	 * share that no longer opens it (the session locked or ended). A record that does not open is deleted.
	 */
	async open(record: StoredKeyRecord, share: Uint8Array): Promise<Uint8Array | null> {
		const database = await this.database();
		const saved = await database.get('unlock', record.kind);
		if (!saved) return null;
		const key = sealingKey(share, record);
		try {
			if (saved.publicKey !== record.publicKey) throw new Error('saved for another key');
			const bytes = await openBytesForDevice(await this.deviceKey(), saved.sealed, CONTEXT);
			const nonce = bytes.subarray(0, NONCE_BYTES);
			const secretKey = sodium().crypto_aead_xchacha20poly1305_ietf_decrypt(
				null,
				bytes.subarray(NONCE_BYTES),
				additionalData(record),
				nonce,
				key
			);
			checkPair(record.kind, secretKey, b64uDecode(record.publicKey, 'publicKey'));
			return secretKey;
		} catch {
			await database.delete('unlock', record.kind);
			return null;
		} finally {
			key.fill(0);
		}
	}

	async clear(): Promise<void> {
		await (await this.database()).clear('unlock');
	}
}
