/**
 * The key store's IndexedDB schema and its versioned upgrades: one record per key kind
 * (the agent's X25519 key, the admin's Ed25519 `signing.key` of contract 2.1), the device key, and
 * sealed under it the agent's drafts (docs/crypto-worker.md "Drafts"), search index (docs/search.md) and
 * the unlocked key kept for the browser session's other tabs (keystore/session-unlock.ts).
 * Upgrades run in order from the stored version, so a later version can migrate stored records.
 */
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { fail } from '../errors';
import type { DeviceSealed, DeviceSealedBytes } from './device-key';
import type { PassphraseKdf } from './passphrase';

export const KEYSTORE_DATABASE = 'inbox-keystore';

/** `agent`: the agent's X25519 key pair. `signing`: the company's Ed25519 `signing.key`, held by an admin. */
export type KeyKind = 'agent' | 'signing';

export const KEY_KINDS: readonly KeyKind[] = ['agent', 'signing'];

/** Format of a key record's content; a migration that changes it bumps this and converts old records. */
export const KEY_RECORD_FORMAT = 1;

export interface StoredKeyRecord {
	kind: KeyKind;
	format: typeof KEY_RECORD_FORMAT;
	/** b64u: X25519 public key (agent) or Ed25519 public key (signing). */
	publicKey: string;
	/** Agents only: `agk_` + 16 base64url characters (docs/contract-gaps.md §1). */
	agentKeyId?: string;
	/** ISO 8601 UTC. */
	createdAt: string;
	/** ISO 8601 UTC of the last passphrase change or re-seal. */
	updatedAt: string;
	/** Argon2id parameters of the passphrase layer (public, needed to derive its key). */
	kdf: PassphraseKdf;
	/** AES-GCM under the device key of `nonce(24) ‖ XChaCha20-Poly1305 box`, the passphrase layer. */
	sealed: DeviceSealed;
}

export interface DeviceKeyRecord {
	id: 'device';
	/** Non-extractable AES-256-GCM key. */
	key: CryptoKey;
	createdAt: string;
}

/** A reply or note being written, AES-GCM under the device key (keystore/drafts.ts). */
export interface StoredDraftRecord {
	conversationId: string;
	sealed: DeviceSealed;
	/** ISO 8601 UTC. */
	updatedAt: string;
}

/** The agent's search index, AES-GCM under the device key (keystore/search-index.ts). */
export interface StoredSearchRecord {
	id: 'index';
	sealed: DeviceSealedBytes;
	/** ISO 8601 UTC. */
	updatedAt: string;
}

/** An unlocked key sealed for the other tabs of the browser session (keystore/session-unlock.ts). */
export interface StoredUnlockRecord {
	kind: KeyKind;
	/** b64u: the public key of the key record it opens. */
	publicKey: string;
	/** AES-GCM under the device key of `nonce(24) ‖ XChaCha20-Poly1305 box` under the session's share. */
	sealed: DeviceSealedBytes;
	/** ISO 8601 UTC. */
	updatedAt: string;
}

export interface KeyStoreSchema extends DBSchema {
	keys: { key: KeyKind; value: StoredKeyRecord };
	unlock: { key: KeyKind; value: StoredUnlockRecord };
	device: { key: 'device'; value: DeviceKeyRecord };
	drafts: { key: string; value: StoredDraftRecord };
	search: { key: 'index'; value: StoredSearchRecord };
}

export type KeyStoreDatabase = IDBPDatabase<KeyStoreSchema>;
type UpgradeTransaction = IDBPTransaction<KeyStoreSchema, StoreNames<KeyStoreSchema>[], 'versionchange'>;

/**
 * `UPGRADES[n]` takes a database from version n to n + 1. Append, never edit: a browser may hold
 * any earlier version. A record migration walks `transaction.objectStore('keys')` with a cursor
 * (no other awaits inside the upgrade transaction) and rewrites each record in the new format.
 */
const UPGRADES: ReadonlyArray<(database: KeyStoreDatabase, transaction: UpgradeTransaction) => void> = [
	(database) => {
		database.createObjectStore('keys', { keyPath: 'kind' });
		database.createObjectStore('device', { keyPath: 'id' });
	},
	(database) => {
		database.createObjectStore('drafts', { keyPath: 'conversationId' });
	},
	(database) => {
		database.createObjectStore('search', { keyPath: 'id' });
	},
	(database) => {
		database.createObjectStore('unlock', { keyPath: 'kind' });
	}
];

export const KEYSTORE_VERSION = UPGRADES.length;

/**
 * Opens (creating or upgrading) the key store. The connection closes itself when another tab
 * needs to upgrade; `onClose` then tells the owner to open it again on its next call.
 */
export async function openKeyStoreDatabase(name = KEYSTORE_DATABASE, onClose: () => void = () => {}): Promise<KeyStoreDatabase> {
	if (typeof indexedDB === 'undefined') fail('STORAGE_UNAVAILABLE', 'IndexedDB is unavailable in this browser');
	try {
		const database: KeyStoreDatabase = await openDB<KeyStoreSchema>(name, KEYSTORE_VERSION, {
			upgrade(db, oldVersion, newVersion, transaction) {
				for (let version = oldVersion; version < (newVersion ?? KEYSTORE_VERSION); version++) UPGRADES[version](db, transaction);
			},
			blocking() {
				database.close();
				onClose();
			},
			terminated: onClose
		});
		return database;
	} catch (error) {
		if ((error as DOMException)?.name === 'VersionError') {
			fail('STORAGE_UNAVAILABLE', 'the key store was written by a newer version of the inbox; reload the page to get it');
		}
		return fail('STORAGE_UNAVAILABLE', `the key store cannot be opened: ${(error as Error)?.message ?? String(error)}`);
	}
}
