/**
 * Persistent storage for the key store, asked from the page (`persist()` exists on
 * windows only): without it the browser may evict IndexedDB under storage pressure, and the wrapped
 * keys with it, so the UI tells the user and points to the backup file. A browser may leave the
 * question to a permission prompt the user never answers (Firefox): after a few seconds the page warns
 * as if refused, rather than wait.
 */

export type PersistenceState = 'persisted' | 'refused' | 'unanswered' | 'unsupported';

/** How long the page waits for the browser's answer before it shows the warning. */
export const PERSISTENCE_ANSWER_WAIT_MS = 2000;

export interface PersistenceAnswer {
	state: PersistenceState;
	/** A sentence for the user; empty when storage is persistent. */
	message: string;
}

const MESSAGES: Record<PersistenceState, string> = {
	persisted: '',
	refused:
		'This browser did not grant persistent storage, so it may delete your stored keys when space runs low. Keep your key backup file somewhere safe.',
	unanswered:
		'This browser has not granted persistent storage (yet), so it may delete your stored keys when space runs low. Keep your key backup file somewhere safe.',
	unsupported:
		'This browser cannot keep storage persistent, so it may delete your stored keys when space runs low. Keep your key backup file somewhere safe.'
};

/** Asks for persistent storage (once granted, the browser keeps answering yes without a prompt). */
export async function requestPersistentStorage(
	storage: StorageManager | undefined = globalThis.navigator?.storage,
	waitMs = PERSISTENCE_ANSWER_WAIT_MS
): Promise<PersistenceAnswer> {
	let state: PersistenceState;
	if (!storage?.persist) state = 'unsupported';
	else {
		const asked = (async () => ((await storage.persisted()) || (await storage.persist()) ? 'persisted' : 'refused'))();
		let timer: ReturnType<typeof setTimeout> | undefined;
		const unanswered = new Promise<'unanswered'>((resolve) => (timer = setTimeout(() => resolve('unanswered'), waitMs)));
		try {
			state = await Promise.race([asked, unanswered]);
		} catch {
			state = 'refused';
		} finally {
			clearTimeout(timer);
		}
	}
	return { state, message: MESSAGES[state] };
}
