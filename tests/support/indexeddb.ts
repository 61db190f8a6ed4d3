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
