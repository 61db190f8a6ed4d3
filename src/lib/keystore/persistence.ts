/**
 * Persistent storage for the key store, asked from the page (`persist()` exists on
 * windows only): without it the browser may evict IndexedDB under storage pressure, and the wrapped
 * keys with it, so the UI tells the user and points to the backup file.
 */

export type PersistenceState = 'persisted' | 'refused' | 'unsupported';

export interface PersistenceAnswer {
	state: PersistenceState;
	/** A sentence for the user; empty when storage is persistent. */
	message: string;
}

const MESSAGES: Record<PersistenceState, string> = {
	persisted: '',
	refused:
		'This browser did not grant persistent storage, so it may delete your stored keys when space runs low. Keep your key backup file somewhere safe.',
	unsupported:
		'This browser cannot keep storage persistent, so it may delete your stored keys when space runs low. Keep your key backup file somewhere safe.'
};

/** Asks for persistent storage (once granted, the browser keeps answering yes without a prompt). */
export async function requestPersistentStorage(
	storage: StorageManager | undefined = globalThis.navigator?.storage
): Promise<PersistenceAnswer> {
	let state: PersistenceState;
	if (!storage?.persist) state = 'unsupported';
	else {
		try {
			state = (await storage.persisted()) || (await storage.persist()) ? 'persisted' : 'refused';
		} catch {
			state = 'refused';
		}
	}
	return { state, message: MESSAGES[state] };
}
