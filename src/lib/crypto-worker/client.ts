/**
 * The page's side of the crypto worker (docs/crypto-worker.md "Using it from the page"): the worker's
 * API, declared in api/index.ts, through one guarded comlink proxy. Each method the interface declares
 * goes to the worker as it is, once the account is selected; the few the page adapts are in `pageCalls`;
 * a name the interface does not declare fails at once. A `ContractError` thrown in the worker arrives
 * here as a `ContractError` with its code (transfer.ts).
 */
import { proxy, wrap, type Endpoint, type Remote } from 'comlink';
import type { CryptoWorkerApi } from './api';
import { decryptDownload, type DecryptionStep } from './download';
import { installTransferHandlers } from './transfer';
import type { AttachmentDetails, DecryptedAttachment, EncryptedAttachment, ProgressCallback } from './types';

export type * from './types';

export interface CryptoWorkerOptions {
	/** Keeps this account's keys in their own database (`inbox-keystore:<accountId>`). */
	accountId?: string;
	/** How many chunk workers attachments use (default: one per core beside the crypto worker, at most four). */
	chunkWorkers?: number;
}

/** The calls the page makes its own way; every other one is the interface's. */
interface PageCalls {
	/** Encrypts a File or Blob for upload; `meta` goes into the attachment message, `ciphertext` to `uploadUrl`. */
	encryptAttachment(file: Blob, details: AttachmentDetails, options?: { onProgress?: ProgressCallback }): Promise<EncryptedAttachment>;
	/**
	 * Decrypts a download as it arrives: pass the `fetch` Response (or its body). The page only reads
	 * it; its bytes move to the worker as transferred buffers. Resolves with a Blob only when the
	 * length and digest check; any failure (network included) is `DECRYPT_FAILED` and leaves no Blob.
	 */
	decryptAttachmentStream(
		source: Response | ReadableStream<Uint8Array>,
		meta: unknown,
		options?: { ciphertextSize?: number; onProgress?: ProgressCallback }
	): Promise<DecryptedAttachment>;
	/** Stops the worker at once; its memory, with every secret, goes with it. Later calls fail. */
	terminate(): void;
}

/** The crypto worker as the page holds it: the worker's API as declared, but for the page's own calls. */
export type CryptoWorkerClient = Omit<CryptoWorkerApi, keyof PageCalls | DecryptionStep> & PageCalls;

/** What the page adapts: its own calls, and `selectAccount`, which is how the account gets selected. */
type Adapted = PageCalls & Pick<CryptoWorkerApi, 'selectAccount'>;

type Forwarded = Exclude<keyof CryptoWorkerApi, keyof Adapted | DecryptionStep>;

/** `list`, which must name every one of `Names` and nothing else: otherwise it does not compile, and says what is missing. */
const everyName =
	<Names extends string>() =>
	<const List extends readonly Names[]>(
		list: List & ([Exclude<Names, List[number]>] extends [never] ? unknown : { missing: Exclude<Names, List[number]> })
	): readonly Names[] =>
		list;

/** The methods that go to the worker as they are, by part of the API (api/): the guard knows these and `Adapted`. */
const FORWARDED = everyName<Forwarded>()([
	'ready',
	// keys
	'status',
	'createAgentKey',
	'importSigningKey',
	'unlock',
	'lock',
	'changePassphrase',
	'exportBackup',
	'importBackup',
	'deleteKey',
	'rememberUnlock',
	'resumeUnlock',
	'forgetUnlock',
	'fingerprint',
	// drafts
	'saveDraft',
	'loadDraft',
	'removeDraft',
	'draftConversations',
	'clearDrafts',
	// messages
	'openConversationKey',
	'openConversationKeys',
	'decryptHistory',
	'encryptReply',
	// attachments
	'useChunkWorkers',
	'encryptAttachmentMessage',
	// private records
	'encryptPrivateRecord',
	'sealPendingProfile',
	'decryptPrivateRecords',
	// signing
	'signRoster',
	'signRotation',
	'rosterStatement',
	'verifyRoster',
	'verifyRotation',
	// search
	'searchMessages',
	'searchStatus',
	'markSearchCovered',
	'forgetSearch',
	'clearSearch'
]);

/** A worker as the client drives it: comlink's endpoint, and a way to stop it. */
export type WorkerEndpoint = Endpoint & { terminate(): void };

type Call = <T>(operation: () => Promise<T>) => Promise<T>;

/** The worker's life as calls see it: the account selected first, and a stop (terminated, or its script failed) that fails every call. */
function lifecycle(worker: WorkerEndpoint, remote: Remote<CryptoWorkerApi>, options: CryptoWorkerOptions) {
	let stop!: (reason: Error) => void;
	const stopped = new Promise<never>((_, reject) => (stop = reject));
	stopped.catch(() => undefined);
	worker.addEventListener('error', (event) => {
		const detail = event instanceof ErrorEvent && event.message ? event.message : 'its script could not be loaded';
		stop(new Error(`the crypto worker failed: ${detail}`));
	});
	// Every call waits for the account's store and the chunk worker count: a refusal fails them all, never falls back.
	const selected = Promise.all([
		options.accountId === undefined ? undefined : remote.selectAccount(options.accountId),
		options.chunkWorkers === undefined ? undefined : remote.useChunkWorkers(options.chunkWorkers)
	]).then(() => undefined);
	selected.catch(() => undefined);
	/** Runs a call after the account is selected; fails instead of hanging when the worker dies or is terminated. */
	const call: Call = async (operation) => {
		await Promise.race([selected, stopped]);
		return Promise.race([operation(), stopped]);
	};
	return { call, stopped, stop };
}

/** The page's adaptations, once per method that needs one. */
function pageCalls(worker: WorkerEndpoint, remote: Remote<CryptoWorkerApi>, life: ReturnType<typeof lifecycle>): Adapted {
	return {
		/** It is how the account gets selected, so it waits for no selection. */
		selectAccount: (accountId) => Promise.race([remote.selectAccount(accountId), life.stopped]),
		/** The progress callback crosses as a comlink proxy. */
		encryptAttachment: (file, details, options = {}) => {
			const onProgress = options.onProgress && proxy(options.onProgress);
			return life.call(() => remote.encryptAttachment(file, details, onProgress));
		},
		/** The Response's body is read here and crosses in transferred pieces, through the worker's decryption steps (download.ts). */
		decryptAttachmentStream: (source, meta, options) => decryptDownload(remote, life.call, source, meta, options),
		terminate: () => {
			worker.terminate();
			life.stop(new Error('the crypto worker was terminated'));
		}
	};
}

/** Refuses at once a name the API does not declare; the client is no thenable, and a symbol (inspection) finds nothing. */
function guarded(calls: CryptoWorkerClient): CryptoWorkerClient {
	const methods = Object.freeze(Object.assign(Object.create(null) as object, calls));
	return new Proxy(methods, {
		get(target, name) {
			if (typeof name === 'symbol' || name === 'then') return undefined;
			if (!Object.hasOwn(target, name))
				throw new TypeError(`the crypto worker's API has no method ${JSON.stringify(name)} (src/lib/crypto-worker/api)`);
			return target[name as keyof typeof target];
		}
	});
}

/** The client of a running crypto worker (`createCryptoWorker` starts one; the specs connect one over a MessageChannel). */
export function connectCryptoWorker(worker: WorkerEndpoint, options: CryptoWorkerOptions = {}): CryptoWorkerClient {
	installTransferHandlers();
	const remote = wrap<CryptoWorkerApi>(worker);
	const life = lifecycle(worker, remote, options);
	const forward =
		(name: Forwarded) =>
		(...args: unknown[]) =>
			life.call(() => (remote[name] as (...input: unknown[]) => Promise<unknown>)(...args));
	// The names are the interface's, every one (FORWARDED), so the object is the interface's part.
	const forwarded = Object.fromEntries(FORWARDED.map((name) => [name, forward(name)])) as unknown as Pick<CryptoWorkerApi, Forwarded>;
	return guarded({ ...forwarded, ...pageCalls(worker, remote, life) });
}

/** Starts a crypto worker. Call it in the browser only (e.g. in `onMount`), once per page. */
export function createCryptoWorker(options: CryptoWorkerOptions = {}): CryptoWorkerClient {
	return connectCryptoWorker(new Worker(new URL('./entry.ts', import.meta.url), { type: 'module', name: 'inbox-crypto' }), options);
}
