/**
 * Every record of every IndexedDB database of the test page's origin, made JSON-safe, for the key store
 * tests that look for secrets at rest (docs/crypto-worker.md "The key store").
 */
import { hexEncode } from '../../../src/lib/crypto/encoding';

/** IndexedDB values made JSON-safe: bytes as hex, CryptoKeys described by what they allow. */
function plain(value: unknown): unknown {
	if (value instanceof ArrayBuffer) return { $bytes: hexEncode(new Uint8Array(value)) };
	if (ArrayBuffer.isView(value)) return { $bytes: hexEncode(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)) };
	if (typeof CryptoKey !== 'undefined' && value instanceof CryptoKey) {
		return { $cryptoKey: { type: value.type, extractable: value.extractable, algorithm: value.algorithm.name, usages: value.usages } };
	}
	if (value instanceof Date) return value.toISOString();
	if (Array.isArray(value)) return value.map(plain);
	if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
	return value;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
	return new Promise((resolve, reject) => {
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
	});
}

export async function dumpIndexedDb() {
	const dump: Array<{ database: string; version: number; store: string; records: unknown[] }> = [];
	for (const info of await indexedDB.databases()) {
		if (!info.name) continue;
		const database = await request(indexedDB.open(info.name));
		try {
			for (const store of Array.from(database.objectStoreNames)) {
				const records = await request(database.transaction(store).objectStore(store).getAll());
				dump.push({ database: info.name, version: database.version, store, records: records.map(plain) });
			}
		} finally {
			database.close();
		}
	}
	return dump;
}
