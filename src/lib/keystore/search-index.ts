/**
 * The agent's search index at rest (docs/search.md, "At rest"): one record in the account's key store,
 * the serialized index (bytes) sealed with AES-256-GCM under the device key, additional data
 * `inbox-search|v1`, kept as raw bytes (the index of 1,000,000 messages is some 200 MiB: no base64).
 * Only the worker reads it, while the agent key is unlocked; sign-out deletes it.
 */
import { openBytesForDevice, sealBytesForDevice } from './device-key';
import type { KeyStoreDatabase } from './schema';

export const SEARCH_INDEX_CONTEXT = 'inbox-search|v1';

export class SealedSearchIndex {
	constructor(
		private readonly database: () => Promise<KeyStoreDatabase>,
		private readonly deviceKey: () => Promise<CryptoKey>
	) {}

	async save(serialized: Uint8Array): Promise<void> {
		const sealed = await sealBytesForDevice(await this.deviceKey(), serialized, SEARCH_INDEX_CONTEXT);
		await (await this.database()).put('search', { id: 'index', sealed, updatedAt: new Date().toISOString() });
	}

	/** The stored index, or null; one that does not open here (another browser's, damaged) is deleted. */
	async load(): Promise<Uint8Array | null> {
		const database = await this.database();
		const record = await database.get('search', 'index');
		if (!record) return null;
		try {
			return await openBytesForDevice(await this.deviceKey(), record.sealed, SEARCH_INDEX_CONTEXT);
		} catch {
			await database.delete('search', 'index');
			return null;
		}
	}

	async clear(): Promise<void> {
		await (await this.database()).delete('search', 'index');
	}
}
