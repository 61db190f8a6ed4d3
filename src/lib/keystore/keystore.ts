/**
 * The browser key store, run inside the crypto worker: the agent's X25519 key and the
 * admin's Ed25519 `signing.key` (contract 2.1) stored wrapped twice (passphrase layer, then device
 * layer), with create, unlock, change of passphrase, backup export and import, and delete; and the
 * agent's drafts and search index under the same device key.
 */
import { b64uDecode, b64uEncode } from '../crypto/encoding';
import { fail } from '../errors';
import { checkEd25519SecretKey, generateX25519KeyPair } from '../crypto/keys';
import { sodium } from '../crypto/sodium';
import { BACKUP_FORMAT, BACKUP_VERSION, parseBackup, passphraseContext, type KeyBackup } from './backup';
import { generateDeviceKey } from './device-key';
import { DraftStore } from './drafts';
import { SealedSearchIndex } from './search-index';
import { SessionUnlock } from './session-unlock';
import { isWeakerThanDefaults, openWithPassphrase, requireNewPassphrase } from './passphrase';
import {
	checkPair,
	describe,
	openRecord,
	passphraseLayerOf,
	recordOf,
	sealRecord,
	type KeyInfo,
	type OpenedKey,
	type RecordBase
} from './records';
import { KEY_KINDS, KEYSTORE_DATABASE, openKeyStoreDatabase, type KeyKind, type KeyStoreDatabase, type StoredKeyRecord } from './schema';

export type { KeyInfo, OpenedKey } from './records';

const now = () => new Date().toISOString();

function requireKind(kind: unknown): KeyKind {
	if (!KEY_KINDS.includes(kind as KeyKind)) fail('INVALID_INPUT', 'key kind must be agent or signing');
	return kind as KeyKind;
}

/** `agk_` + 16 base64url characters (docs/contract-gaps.md §1). */
function newAgentKeyId(): string {
	return `agk_${b64uEncode(sodium().randombytes_buf(12))}`;
}

export class KeyStore {
	private database: Promise<KeyStoreDatabase> | undefined;
	/** The agent's drafts, sealed under this store's device key. */
	readonly drafts = new DraftStore(
		() => this.open(),
		() => this.deviceKey()
	);
	/** The agent's search index, sealed under the same device key. */
	readonly searchIndex = new SealedSearchIndex(
		() => this.open(),
		() => this.deviceKey()
	);
	/** Unlocked keys kept for the browser session's other tabs and reloads. */
	private readonly sessionUnlock = new SessionUnlock(
		() => this.open(),
		() => this.deviceKey()
	);

	constructor(private readonly databaseName = KEYSTORE_DATABASE) {}

	private open(): Promise<KeyStoreDatabase> {
		this.database ??= openKeyStoreDatabase(this.databaseName, () => (this.database = undefined)).catch((error) => {
			this.database = undefined;
			throw error;
		});
		return this.database;
	}

	/** Closes the database connection (another account's store takes over); the next call opens it again. */
	async close(): Promise<void> {
		const database = this.database;
		this.database = undefined;
		(await database?.catch(() => undefined))?.close();
	}

	/** The device key, created on first use; two tabs racing both end up with the first one stored. */
	private async deviceKey(): Promise<CryptoKey> {
		const database = await this.open();
		const stored = await database.get('device', 'device');
		if (stored) return stored.key;
		const key = await generateDeviceKey();
		const transaction = database.transaction('device', 'readwrite');
		const existing = await transaction.store.get('device');
		if (!existing) await transaction.store.put({ id: 'device', key, createdAt: now() });
		await transaction.done;
		return existing?.key ?? key;
	}

	/** Public values of every stored key. */
	async list(): Promise<KeyInfo[]> {
		const database = await this.open();
		return (await database.getAll('keys')).map(describe);
	}

	async info(kind: KeyKind): Promise<KeyInfo | null> {
		const record = await (await this.open()).get('keys', requireKind(kind));
		return record ? describe(record) : null;
	}

	private async record(kind: KeyKind): Promise<StoredKeyRecord> {
		const record = await (await this.open()).get('keys', requireKind(kind));
		if (!record) fail('KEY_NOT_FOUND', `no ${kind} key is stored in this browser`);
		return record;
	}

	/** Seals a secret under the passphrase and this browser's device key. */
	private async sealWith(base: RecordBase, secretKey: Uint8Array, passphrase: string): Promise<StoredKeyRecord> {
		return sealRecord(await this.deviceKey(), base, secretKey, passphrase);
	}

	/**
	 * Writes `record` in one transaction, only if the stored record is still `expected` (null: none
	 * stored). The old wrap stays valid until the new one replaces it in a single put.
	 */
	private async replace(record: StoredKeyRecord, expected: StoredKeyRecord | null): Promise<void> {
		const database = await this.open();
		const transaction = database.transaction('keys', 'readwrite');
		const current = (await transaction.store.get(record.kind)) ?? null;
		if ((current?.sealed.ciphertext ?? null) !== (expected?.sealed.ciphertext ?? null)) {
			transaction.abort();
			await transaction.done.catch(() => undefined);
			fail(
				'KEY_EXISTS',
				expected
					? `the stored ${record.kind} key changed meanwhile; try again`
					: `${record.kind === 'agent' ? 'an agent' : 'a signing'} key is already stored in this browser`
			);
		}
		await transaction.store.put(record);
		await transaction.done;
	}

	/** Generates the agent's X25519 pair and `agentKeyId`; refuses if an agent key is stored. */
	async createAgentKey(passphrase: string): Promise<OpenedKey> {
		requireNewPassphrase(passphrase);
		if (await (await this.open()).get('keys', 'agent')) fail('KEY_EXISTS', 'an agent key is already stored in this browser');
		const pair = generateX25519KeyPair();
		const createdAt = now();
		const base = { kind: 'agent' as const, publicKey: b64uEncode(pair.publicKey), agentKeyId: newAgentKeyId(), createdAt };
		const record = await this.sealWith(base, pair.secretKey, passphrase);
		await this.replace(record, null);
		return { info: describe(record), publicKey: pair.publicKey, secretKey: pair.secretKey };
	}

	/**
	 * Stores an already checked Ed25519 `signing.key`. A different stored signing key is replaced
	 * only with `replace`; the same key is re-sealed under the new passphrase.
	 */
	async storeSigningKey(secretKey: Uint8Array, passphrase: string, options: { replace?: boolean } = {}): Promise<OpenedKey> {
		requireNewPassphrase(passphrase);
		const publicKey = checkEd25519SecretKey(secretKey).publicKey;
		const existing = (await (await this.open()).get('keys', 'signing')) ?? null;
		const publicText = b64uEncode(publicKey);
		if (existing && existing.publicKey !== publicText && !options.replace) {
			fail('KEY_EXISTS', 'another signing key is already stored in this browser');
		}
		const record = await this.sealWith(
			{ kind: 'signing', publicKey: publicText, createdAt: existing?.createdAt ?? now() },
			secretKey,
			passphrase
		);
		await this.replace(record, existing);
		return { info: describe(record), publicKey, secretKey: secretKey.slice() };
	}

	/** Opens a stored key; a wrong passphrase is `WRONG_PASSPHRASE` and changes nothing. */
	async unlock(kind: KeyKind, passphrase: string): Promise<OpenedKey> {
		const record = await this.record(requireKind(kind));
		const opened = await openRecord(await this.deviceKey(), record, passphrase);
		if (isWeakerThanDefaults(record.kdf)) {
			const upgraded = await this.sealWith(record, opened.secretKey, passphrase);
			await this.replace(upgraded, record).catch(() => undefined); // best effort: the old wrap stays valid
		}
		return opened;
	}

	/** Re-seals under a new passphrase; the old wrap stays valid until the new one replaces it atomically. */
	async changePassphrase(kind: KeyKind, oldPassphrase: string, newPassphrase: string): Promise<KeyInfo> {
		requireNewPassphrase(newPassphrase);
		const record = await this.record(requireKind(kind));
		const opened = await openRecord(await this.deviceKey(), record, oldPassphrase);
		try {
			const updated = await this.sealWith(record, opened.secretKey, newPassphrase);
			await this.replace(updated, record);
			return describe(updated);
			// Stryker disable next-line all: equivalent: wipes this call's own copy of the secret, which nothing reads afterwards
		} finally {
			opened.secretKey.fill(0);
		}
	}

	/** The backup file of a stored key; the passphrase must open it (it is the one the backup needs). */
	async exportBackup(kind: KeyKind, passphrase: string): Promise<KeyBackup> {
		const record = await this.record(requireKind(kind));
		const layer = await passphraseLayerOf(await this.deviceKey(), record);
		openWithPassphrase(layer, passphrase, passphraseContext(record.kind, record.publicKey)).fill(0);
		return {
			format: BACKUP_FORMAT,
			version: BACKUP_VERSION,
			kind: record.kind,
			publicKey: record.publicKey,
			...(record.agentKeyId ? { agentKeyId: record.agentKeyId } : {}),
			createdAt: record.createdAt,
			exportedAt: now(),
			...layer
		};
	}

	/**
	 * Restores a backup: opens it with its passphrase, checks the pair, and stores it re-sealed
	 * under this browser's device key. A different stored key of that kind is replaced only with
	 * `replace` (the conversations sealed for it would become unreadable here).
	 */
	async importBackup(text: string, passphrase: string, options: { replace?: boolean } = {}): Promise<OpenedKey> {
		const backup = parseBackup(text);
		const existing = (await (await this.open()).get('keys', backup.kind)) ?? null;
		if (existing && existing.publicKey !== backup.publicKey && !options.replace) {
			fail('KEY_EXISTS', `another ${backup.kind} key is already stored in this browser; importing would replace it`);
		}
		const secretKey = openWithPassphrase(backup, passphrase, passphraseContext(backup.kind, backup.publicKey));
		// Stryker disable next-line all: equivalent: parseBackup has checked publicKey as 32 bytes of base64url, so this decoding cannot fail
		const publicKey = b64uDecode(backup.publicKey, 'publicKey');
		checkPair(backup.kind, secretKey, publicKey);
		// The file's passphrase layer is kept as it is unless its parameters are weaker than today's.
		const record = isWeakerThanDefaults(backup.kdf)
			? await this.sealWith(backup, secretKey, passphrase)
			: await recordOf(await this.deviceKey(), backup, backup);
		await this.replace(record, existing);
		return { info: describe(record), publicKey, secretKey };
	}

	/** Keeps an opened key for this browser session's other tabs, sealed under the server's `share` and the device key. */
	async rememberUnlock(opened: OpenedKey, share: Uint8Array): Promise<void> {
		await this.sessionUnlock.save(await this.record(opened.info.kind), opened.secretKey, share);
	}

	/** The key a tab of this browser session unlocked, opened with the session's `share`; null when there is none or it does not open. */
	async resumeUnlock(kind: KeyKind, share: Uint8Array): Promise<OpenedKey | null> {
		const record = await this.record(requireKind(kind));
		const secretKey = await this.sessionUnlock.open(record, share);
		return secretKey && { info: describe(record), publicKey: b64uDecode(record.publicKey, 'publicKey'), secretKey };
	}

	/** Lock and sign-out: no tab opens the keys without the passphrase. */
	async forgetUnlock(): Promise<void> {
		await this.sessionUnlock.clear();
	}

	/** Deletes a stored key; true when there was one. */
	async delete(kind: KeyKind): Promise<boolean> {
		const database = await this.open();
		const transaction = database.transaction('keys', 'readwrite');
		const existed = (await transaction.store.getKey(requireKind(kind))) !== undefined;
		await transaction.store.delete(kind);
		await transaction.done;
		await database.delete('unlock', kind);
		return existed;
	}
}
