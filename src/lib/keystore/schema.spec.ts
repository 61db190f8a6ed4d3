import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import { describe, expect, it } from 'vitest';
import { refusal } from '$test-support/refusal';
import { KEYSTORE_VERSION, openKeyStoreDatabase } from './schema';

let databases = 0;
const freshName = () => `inbox-keystore-schema-spec-${++databases}`;

/** How opening a new key store ends in a browser whose IndexedDB is `storage` (undefined: none at all). */
async function openedWithBrowserStorage(storage: IDBFactory | undefined) {
	const indexedDB = globalThis.indexedDB;
	if (storage) globalThis.indexedDB = storage;
	else Reflect.deleteProperty(globalThis, 'indexedDB');
	try {
		return await refusal(openKeyStoreDatabase(freshName()));
	} finally {
		globalThis.indexedDB = indexedDB;
	}
}

describe('the key store database (docs/crypto-worker.md)', () => {
	it('creates its stores, and steps aside when another tab upgrades it', async () => {
		const name = freshName();
		let closed = 0;
		const database = await openKeyStoreDatabase(name, () => closed++);
		expect([...database.objectStoreNames].sort()).toEqual(['device', 'drafts', 'keys', 'search', 'unlock']);
		const newer = await openDB(name, KEYSTORE_VERSION + 1);
		expect(closed).toBe(1);
		expect(newer.version).toBe(KEYSTORE_VERSION + 1);
		newer.close();
	});

	it('upgrades a store of the first version in place, keeping its records', async () => {
		const name = freshName();
		const first = await openDB(name, 1, {
			upgrade(db) {
				db.createObjectStore('keys', { keyPath: 'kind' });
				db.createObjectStore('device', { keyPath: 'id' });
			}
		});
		await first.put('device', { id: 'device', key: 'kept', createdAt: '2026-11-01T00:00:00.000Z' });
		first.close();
		const upgraded = await openKeyStoreDatabase(name);
		expect(upgraded.version).toBe(KEYSTORE_VERSION);
		expect([...upgraded.objectStoreNames].sort()).toEqual(['device', 'drafts', 'keys', 'search', 'unlock']);
		expect((await upgraded.get('device', 'device'))?.key).toBe('kept');
		upgraded.close();
	});

	it('refuses a store written by a newer version, and a browser without IndexedDB, with STORAGE_UNAVAILABLE', async () => {
		const name = freshName();
		(await openDB(name, KEYSTORE_VERSION + 1)).close();
		expect(await refusal(openKeyStoreDatabase(name))).toEqual({
			code: 'STORAGE_UNAVAILABLE',
			message: 'the key store was written by a newer version of the inbox; reload the page to get it'
		});

		expect(await openedWithBrowserStorage(undefined)).toEqual({
			code: 'STORAGE_UNAVAILABLE',
			message: 'IndexedDB is unavailable in this browser'
		});
	});

	it('says why another failure to open happened (storage refused by the browser)', async () => {
		const refusing = {
			open: () => {
				throw new DOMException('the disk is full', 'QuotaExceededError');
			}
		} as unknown as IDBFactory;
		expect(await openedWithBrowserStorage(refusing)).toEqual({
			code: 'STORAGE_UNAVAILABLE',
			message: 'the key store cannot be opened: the disk is full'
		});
		const throwingNothing = {
			open: () => {
				throw undefined; // a browser may throw anything
			}
		} as unknown as IDBFactory;
		expect(await openedWithBrowserStorage(throwingNothing)).toEqual({
			code: 'STORAGE_UNAVAILABLE',
			message: 'the key store cannot be opened: undefined'
		});
	});
});
