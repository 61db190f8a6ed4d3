/**
 * What a page's IndexedDB holds, read raw from inside the page (as a script on the origin, or a copied
 * profile, would see it): every record of one store, serialized, with any sealed bytes decoded as text
 * so that a plaintext word stored anywhere in them would show.
 */
import type { Page } from '@playwright/test';

export async function rawRecords(page: Page, database: string, store: string): Promise<{ count: number; text: string }> {
	return page.evaluate(
		({ database, store }) =>
			new Promise<{ count: number; text: string }>((resolve, reject) => {
				const request = indexedDB.open(database);
				request.onerror = () => reject(request.error);
				request.onsuccess = () => {
					const opened = request.result;
					const all = opened.transaction(store).objectStore(store).getAll();
					all.onsuccess = () => {
						const bytes = all.result.map((record: { sealed?: { ciphertext?: unknown } }) =>
							record.sealed?.ciphertext instanceof ArrayBuffer ? new TextDecoder().decode(record.sealed.ciphertext) : ''
						);
						resolve({ count: all.result.length, text: JSON.stringify(all.result) + bytes.join('') });
						opened.close();
					};
				};
			}),
		{ database, store }
	);
}

/**
 * Everything the origin's storage holds, as one text: every record of every store of every IndexedDB
 * database (bytes written out as Latin-1, so raw secret bytes would show as such), then localStorage and
 * sessionStorage; `databases` names what was read, so a test can tell that its scan saw the key store.
 */
export async function rawOriginStorage(page: Page): Promise<{ databases: string[]; text: string }> {
	return page.evaluate(async () => {
		const bytesAsText = (bytes: Uint8Array) => Array.from(bytes, (byte) => String.fromCharCode(byte)).join('');
		const flatten = (value: unknown): unknown => {
			if (value instanceof ArrayBuffer) return bytesAsText(new Uint8Array(value));
			if (ArrayBuffer.isView(value)) return bytesAsText(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
			if (value instanceof CryptoKey) return `CryptoKey(${value.type}, extractable: ${value.extractable})`;
			if (Array.isArray(value)) return value.map(flatten);
			if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, flatten(inner)]));
			return value;
		};
		const request = <T>(made: IDBRequest<T>) =>
			new Promise<T>((resolve, reject) => {
				made.onsuccess = () => resolve(made.result);
				made.onerror = () => reject(made.error);
			});
		const names = (await indexedDB.databases()).map((database) => database.name as string);
		const parts: string[] = [];
		for (const name of names) {
			const database = await request(indexedDB.open(name));
			for (const store of Array.from(database.objectStoreNames)) {
				const records = await request(database.transaction(store).objectStore(store).getAll());
				parts.push(`${name}/${store}: ${JSON.stringify(records.map(flatten))}`);
			}
			database.close();
		}
		parts.push(`localStorage: ${JSON.stringify({ ...localStorage })}`, `sessionStorage: ${JSON.stringify({ ...sessionStorage })}`);
		return { databases: names, text: parts.join('\n') };
	});
}
