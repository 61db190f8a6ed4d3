/**
 * The crypto worker's API (docs/crypto-worker.md), declared as the sum of its parts, each built by its
 * own factory over the state they share (state.ts): keys, drafts, messages, attachments, private records,
 * signing and search. The worker exposes it (entry.ts); the page's client is derived from this
 * interface (client.ts). Secrets stay here; the page gets handles, public values, texts, envelopes and
 * transferred bytes.
 */
import { createAttachmentsApi, type AttachmentsApi } from './attachments';
import { createDraftsApi, type DraftsApi } from './drafts';
import { createKeysApi, type KeysApi } from './keys';
import { createMessagesApi, type MessagesApi } from './messages';
import { createPrivateRecordsApi, type PrivateRecordsApi } from './private-records';
import { createSearchApi, type SearchApi } from './search';
import { createSigningApi, type SigningApi } from './signing';
import { WorkerState, type WorkerApiOptions } from './state';

export type { WorkerApiOptions };

export interface CryptoWorkerApi extends KeysApi, DraftsApi, MessagesApi, AttachmentsApi, PrivateRecordsApi, SigningApi, SearchApi {
	/** Resolves once libsodium is loaded. */
	ready(): Promise<void>;
}

export function createWorkerApi(options: WorkerApiOptions = {}): CryptoWorkerApi {
	const state = new WorkerState(options);
	return {
		ready: () => state.run(() => undefined),
		...createKeysApi(state),
		...createDraftsApi(state),
		...createMessagesApi(state),
		...createAttachmentsApi(state),
		...createPrivateRecordsApi(state),
		...createSigningApi(state),
		...createSearchApi(state)
	};
}
