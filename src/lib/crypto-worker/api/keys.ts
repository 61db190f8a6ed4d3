/**
 * The key store part of the crypto worker's API (docs/crypto-worker.md "Using it from the page", "The
 * key store"): which account's store, what it holds, the agent key made here and the admin's
 * `signing.key` imported, unlock and lock, passphrases and backup files, and the contract 2.2
 * fingerprint of a public key. Secrets stay in the worker; the page gets handles and public values.
 */
import { b64uDecode, b64uDecodeLength } from '../../crypto/encoding';
import { checkEd25519SecretKey, fingerprintB64u, fingerprintDisplay, parseKeyFile } from '../../crypto/keys';
import { requireId } from '../../crypto/rules';
import { fail } from '../../errors';
import { backupFileName, formatBackup } from '../../keystore/backup';
import type { OpenedKey } from '../../keystore/keystore';
import { KEYSTORE_DATABASE, type KeyKind } from '../../keystore/schema';
import { UNLOCK_SHARE_BYTES } from '../../keystore/session-unlock';
import type { KeyBackupFile, KeyInfo, KeyStoreStatus, UnlockedKey } from '../types';
import type { WorkerState } from './state';

/** The admin's key files; pass the Files themselves, so their bytes are read in the worker, never in the page. */
export interface SigningKeyImport {
	signingKey: Blob | string;
	/** The `signing.pub` the server knows (text or File). */
	expectedPublicKey: Blob | string;
	passphrase: string;
	replace?: boolean;
}

export interface KeysApi {
	/**
	 * Uses the key store of one account (`inbox-keystore:<accountId>`), or the default one with null;
	 * locks everything first.
	 */
	selectAccount(accountId: string | null): Promise<void>;
	/** What is stored here (public values) and what is unlocked in this worker. */
	status(): Promise<KeyStoreStatus>;
	/** Generates and stores the agent's X25519 key pair and `agentKeyId` under `passphrase` (at least 8 characters); returns it unlocked. */
	createAgentKey(passphrase: string): Promise<UnlockedKey>;
	/**
	 * Imports the admin's `signing.key` (64 bytes, libsodium layout) after checking it against the
	 * expected `signing.pub` the page got from the server; refuses a mismatch with `INVALID_INPUT`.
	 */
	importSigningKey(input: SigningKeyImport): Promise<UnlockedKey>;
	/** Opens a stored key with its passphrase (`WRONG_PASSPHRASE` changes nothing). */
	unlock(kind: KeyKind, passphrase: string): Promise<UnlockedKey>;
	/** Wipes every secret, conversation key and running attachment decryption; every handle becomes invalid (`LOCKED`). */
	lock(): Promise<void>;
	/** Re-seals a stored key under a new passphrase, atomically. */
	changePassphrase(kind: KeyKind, oldPassphrase: string, newPassphrase: string): Promise<KeyInfo>;
	/** The encrypted backup file of a stored key; its passphrase is the key's current one. */
	exportBackup(kind: KeyKind, passphrase: string): Promise<KeyBackupFile>;
	/** Restores a backup file (the File itself, or its text) into this browser and unlocks it; `replace` allows replacing another stored key. */
	importBackup(backup: Blob | string, passphrase: string, options?: { replace?: boolean }): Promise<UnlockedKey>;
	/** Deletes a stored key and wipes it (and, for the agent key, every conversation key) from memory. */
	deleteKey(kind: KeyKind): Promise<boolean>;
	/**
	 * Keeps the unlocked agent key of `handle` for this browser session's other tabs and reloads, sealed under
	 * the session's share from the server (b64u, 32 bytes) and the device key (docs/crypto-worker.md "Unlock
	 * once per browser session"). The admin's signing key always asks for its passphrase.
	 */
	rememberUnlock(handle: string, share: string): Promise<void>;
	/** Opens the agent key another tab of this session unlocked; null when none was kept or the share does not open it. */
	resumeUnlock(share: string): Promise<UnlockedKey | null>;
	/** Lock and sign-out: the kept copies are deleted, and every tab needs the passphrase. */
	forgetUnlock(): Promise<void>;
	/** The contract 2.2 fingerprint of a public key (b64u), with the display form people compare. */
	fingerprint(publicKey: string): Promise<{ fingerprint: string; display: string }>;
}

/** A File or Blob is read here, so a key file's bytes never sit in page memory; text is accepted too. */
async function readText(input: Blob | string, what: string): Promise<string> {
	if (typeof input === 'string') return input;
	if (input instanceof Blob) return input.text();
	return fail('INVALID_INPUT', `${what} must be a File, a Blob or text`);
}

export function createKeysApi(state: WorkerState): KeysApi {
	const { session } = state;
	const hold = (opened: OpenedKey): UnlockedKey => {
		const key = session.hold(opened);
		return { ...key.info, handle: key.handle };
	};
	return {
		selectAccount: (accountId) =>
			state.run(() => state.useStore(accountId === null ? KEYSTORE_DATABASE : `${KEYSTORE_DATABASE}:${requireId(accountId, 'accountId')}`)),
		status: () =>
			state.run(async () => {
				const [agent, signing] = await Promise.all([state.store.info('agent'), state.store.info('signing')]);
				return {
					agent: agent && { ...agent, unlocked: session.isUnlocked('agent') },
					signing: signing && { ...signing, unlocked: session.isUnlocked('signing') }
				};
			}),
		createAgentKey: (passphrase) => state.run(async () => hold(await state.store.createAgentKey(passphrase))),
		importSigningKey: (input) =>
			state.run(async () => {
				if (typeof input !== 'object' || input === null)
					fail('INVALID_INPUT', 'the signing key import needs signingKey, expectedPublicKey and passphrase');
				const expected = parseKeyFile(await readText(input.expectedPublicKey, 'signing.pub'), 32, 'signing.pub');
				const secretKey = parseKeyFile(await readText(input.signingKey, 'signing.key'), 64, 'signing.key');
				try {
					checkEd25519SecretKey(secretKey, expected);
					return hold(await state.store.storeSigningKey(secretKey, input.passphrase, { replace: input.replace }));
				} finally {
					secretKey.fill(0);
				}
			}),
		unlock: (kind, passphrase) => state.run(async () => hold(await state.store.unlock(kind, passphrase))),
		lock: () => state.run(() => state.lock()),
		changePassphrase: (kind, oldPassphrase, newPassphrase) =>
			state.run(() => state.store.changePassphrase(kind, oldPassphrase, newPassphrase)),
		exportBackup: (kind, passphrase) =>
			state.run(async () => {
				const backup = await state.store.exportBackup(kind, passphrase);
				return { fileName: backupFileName(backup), text: formatBackup(backup) };
			}),
		importBackup: (backup, passphrase, options = {}) =>
			state.run(async () => hold(await state.store.importBackup(await readText(backup, 'backup'), passphrase, options))),
		deleteKey: (kind) =>
			state.run(async () => {
				const existed = await state.store.delete(kind);
				session.forget(kind);
				return existed;
			}),
		rememberUnlock: (handle, share) =>
			state.run(async () => {
				const key = session.require(handle, 'agent');
				await state.store.rememberUnlock(key, b64uDecodeLength(share, UNLOCK_SHARE_BYTES, 'share'));
			}),
		resumeUnlock: (share) =>
			state.run(async () => {
				const opened = await state.store.resumeUnlock('agent', b64uDecodeLength(share, UNLOCK_SHARE_BYTES, 'share'));
				return opened && hold(opened);
			}),
		forgetUnlock: () => state.run(() => state.store.forgetUnlock()),
		fingerprint: (publicKey) =>
			state.run(() => {
				const key = b64uDecode(publicKey, 'publicKey');
				return { fingerprint: fingerprintB64u(key), display: fingerprintDisplay(key) };
			})
	};
}
