/**
 * An agent key made in Node for the demo: the X25519 pair and `agentKeyId` the browser's
 * key store would make, and its encrypted backup file in the key store's own format
 * (src/lib/keystore/backup.ts), sealed under the demo password, so the person restores it in the page.
 */
import { b64uEncode, generateX25519KeyPair, sodium } from '../../lib/crypto/index';
import { BACKUP_FORMAT, BACKUP_VERSION, backupFileName, formatBackup, passphraseContext, type KeyBackup } from '../../lib/keystore/backup';
import { sealWithPassphrase } from '../../lib/keystore/passphrase';

export interface NodeAgentKey {
	agentKeyId: string;
	/** b64u of the X25519 public key. */
	publicKey: string;
	/** Kept by the launcher only to write the demo's replies; never sent anywhere. */
	secretKey: Uint8Array;
	backup: { fileName: string; text: string };
}

/** Call after `await initCrypto()`. */
export function createAgentKey(passphrase: string, now = new Date()): NodeAgentKey {
	const pair = generateX25519KeyPair();
	const publicKey = b64uEncode(pair.publicKey);
	const agentKeyId = `agk_${b64uEncode(sodium().randombytes_buf(12))}`;
	const sealed = sealWithPassphrase(pair.secretKey, passphrase, passphraseContext('agent', publicKey));
	const backup: KeyBackup = {
		format: BACKUP_FORMAT,
		version: BACKUP_VERSION,
		kind: 'agent',
		publicKey,
		agentKeyId,
		createdAt: now.toISOString(),
		exportedAt: now.toISOString(),
		...sealed
	};
	return { agentKeyId, publicKey, secretKey: pair.secretKey, backup: { fileName: backupFileName(backup), text: formatBackup(backup) } };
}
