/**
 * The page's side of the crypto worker: starts the module worker, wraps it with comlink
 * and offers typed calls. Streams and ciphertexts are transferred, progress callbacks proxied, and a
 * `ContractError` thrown in the worker arrives here as a `ContractError` with its code.
 */
import { proxy, transfer, wrap, type Remote } from 'comlink';
import { ContractError } from '../errors';
import type { PrivateEnvelope, PrivateRecordKind } from '../crypto/private-record';
import type { CryptoWorkerApi } from './api';
import type { Draft } from '../keystore/drafts';
import type { SearchHit } from '../search/message-index';
import { ProgressReporter } from './progress';
import { pumpPieces } from './stream-pump';
import { installTransferHandlers } from './transfer';
import type {
	AttachmentDetails,
	DecryptedAttachment,
	DecryptedItem,
	EncryptedAttachment,
	Envelope,
	HistoryItem,
	KeyBackupFile,
	KeyInfo,
	KeyKind,
	KeyStoreStatus,
	OpenedConversation,
	Outcome,
	ProgressCallback,
	RosterInput,
	RotationText,
	SignedStatement,
	UnlockedKey,
	Wrap
} from './types';

export type * from './types';

/** The body of a download; an HTTP error is `DECRYPT_FAILED` carrying the status. */
function bodyOf(source: Response | ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
	if (!(source instanceof Response)) return source;
	if (!source.ok || !source.body) {
		void source.body?.cancel().catch(() => undefined);
		throw new ContractError('DECRYPT_FAILED', `the attachment download failed with HTTP ${source.status}`, source.status);
	}
	return source.body;
}

export interface CryptoWorkerOptions {
	/** Keeps this account's keys in their own database (`inbox-keystore:<accountId>`). */
	accountId?: string;
	/** How many chunk workers attachments use (default: one per core beside the crypto worker, at most four). */
	chunkWorkers?: number;
}

export class CryptoWorkerClient {
	private readonly worker: Worker;
	private readonly remote: Remote<CryptoWorkerApi>;
	private readonly stopped: Promise<never>;
	private stop!: (reason: Error) => void;
	private readonly selected: Promise<void>;

	constructor(options: CryptoWorkerOptions = {}) {
		installTransferHandlers();
		this.worker = new Worker(new URL('./entry.ts', import.meta.url), { type: 'module', name: 'inbox-crypto' });
		this.remote = wrap<CryptoWorkerApi>(this.worker);
		this.stopped = new Promise<never>((_, reject) => (this.stop = reject));
		this.stopped.catch(() => undefined);
		this.worker.addEventListener('error', (event) => {
			const detail = event instanceof ErrorEvent && event.message ? event.message : 'its script could not be loaded';
			this.stop(new Error(`the crypto worker failed: ${detail}`));
		});
		// Every call waits for the account's store and the chunk worker count: a refusal fails them all, never falls back.
		this.selected = Promise.all([
			options.accountId === undefined ? undefined : this.remote.selectAccount(options.accountId),
			options.chunkWorkers === undefined ? undefined : this.remote.useChunkWorkers(options.chunkWorkers)
		]).then(() => undefined);
		this.selected.catch(() => undefined);
	}

	/** Runs a call after the account is selected; fails instead of hanging when the worker dies or is terminated. */
	private async call<T>(operation: () => Promise<T>): Promise<T> {
		await Promise.race([this.selected, this.stopped]);
		return Promise.race([operation(), this.stopped]);
	}

	/** Resolves once the worker has loaded libsodium. */
	async ready(): Promise<void> {
		await this.call(() => this.remote.ready());
	}

	/** Switches to another account's key store (null: the default one); locks everything first. */
	selectAccount(accountId: string | null): Promise<void> {
		return Promise.race([this.remote.selectAccount(accountId), this.stopped]);
	}

	status(): Promise<KeyStoreStatus> {
		return this.call(() => this.remote.status());
	}

	/** New agent X25519 key pair and `agentKeyId`, stored under `passphrase` (at least 8 characters). */
	createAgentKey(passphrase: string): Promise<UnlockedKey> {
		return this.call(() => this.remote.createAgentKey(passphrase));
	}

	/**
	 * Imports the admin's `signing.key`; pass the File itself so its bytes are read in the worker,
	 * never in the page. `expectedPublicKey` is the `signing.pub` the server knows (text or File).
	 */
	importSigningKey(input: {
		signingKey: Blob | string;
		expectedPublicKey: Blob | string;
		passphrase: string;
		replace?: boolean;
	}): Promise<UnlockedKey> {
		return this.call(() => this.remote.importSigningKey(input));
	}

	unlock(kind: KeyKind, passphrase: string): Promise<UnlockedKey> {
		return this.call(() => this.remote.unlock(kind, passphrase));
	}

	/** Wipes every secret and conversation key in the worker; handles become invalid (`LOCKED`). */
	lock(): Promise<void> {
		return this.call(() => this.remote.lock());
	}

	changePassphrase(kind: KeyKind, oldPassphrase: string, newPassphrase: string): Promise<KeyInfo> {
		return this.call(() => this.remote.changePassphrase(kind, oldPassphrase, newPassphrase));
	}

	exportBackup(kind: KeyKind, passphrase: string): Promise<KeyBackupFile> {
		return this.call(() => this.remote.exportBackup(kind, passphrase));
	}

	/** Restores a backup (the File itself, or its text); `replace` allows replacing another stored key. */
	importBackup(backup: Blob | string, passphrase: string, options: { replace?: boolean } = {}): Promise<UnlockedKey> {
		return this.call(() => this.remote.importBackup(backup, passphrase, options));
	}

	deleteKey(kind: KeyKind): Promise<boolean> {
		return this.call(() => this.remote.deleteKey(kind));
	}

	/** Keeps the draft of a conversation, sealed under the device key; empty text removes it. */
	saveDraft(conversationId: string, draft: Draft): Promise<void> {
		return this.call(() => this.remote.saveDraft(conversationId, draft));
	}

	/** The draft of a conversation, or null; `LOCKED` while the agent key is locked. */
	loadDraft(conversationId: string): Promise<Draft | null> {
		return this.call(() => this.remote.loadDraft(conversationId));
	}

	removeDraft(conversationId: string): Promise<void> {
		return this.call(() => this.remote.removeDraft(conversationId));
	}

	clearDrafts(): Promise<void> {
		return this.call(() => this.remote.clearDrafts());
	}

	/** Searches the messages decrypted in this browser (docs/search.md). */
	searchMessages(query: string, limit?: number): Promise<SearchHit[]> {
		return this.call(() => this.remote.searchMessages(query, limit));
	}

	searchStatus(): Promise<{ coverage: Record<string, string>; documents: number; conversations: string[] }> {
		return this.call(() => this.remote.searchStatus());
	}

	markSearchCovered(conversationId: string, messageId: string): Promise<void> {
		return this.call(() => this.remote.markSearchCovered(conversationId, messageId));
	}

	forgetSearch(conversationIds: string[]): Promise<void> {
		return this.call(() => this.remote.forgetSearch(conversationIds));
	}

	clearSearch(): Promise<void> {
		return this.call(() => this.remote.clearSearch());
	}

	openConversationKey(handle: string, conversationId: string, wrap: Wrap): Promise<OpenedConversation> {
		return this.call(() => this.remote.openConversationKey(handle, conversationId, wrap));
	}

	openConversationKeys(
		handle: string,
		wraps: ReadonlyArray<{ conversationId: string; wrap: Wrap }>
	): Promise<Array<Outcome<OpenedConversation>>> {
		return this.call(() => this.remote.openConversationKeys(handle, wraps));
	}

	/** One round trip for a page of history; each item gives its text or its own error code. */
	decryptHistory(conversationId: string, items: HistoryItem[]): Promise<DecryptedItem[]> {
		return this.call(() => this.remote.decryptHistory(conversationId, items));
	}

	encryptReply(conversationId: string, text: string, keyVersion: number): Promise<Envelope> {
		return this.call(() => this.remote.encryptReply(conversationId, text, keyVersion));
	}

	/** A note or the customer's profile, encrypted under the conversation's open key (docs/private-records.md). */
	encryptPrivateRecord(input: {
		kind: PrivateRecordKind;
		conversationId: string;
		authorId: string;
		text: string;
	}): Promise<PrivateEnvelope> {
		return this.call(() => this.remote.encryptPrivateRecord(input));
	}

	/** A profile written with an invitation, sealed to the company's public key (b64u). */
	sealPendingProfile(input: { conversationId: string; authorId: string; text: string; companyPublicKey: string }): Promise<string> {
		return this.call(() => this.remote.sealPendingProfile(input));
	}

	/** A conversation's notes or profile versions in one round trip; each gives its text or its own error code. */
	decryptPrivateRecords(
		conversationId: string,
		kind: PrivateRecordKind,
		records: Array<{ authorId: string; envelope: unknown }>
	): Promise<Array<Outcome<{ text: string }>>> {
		return this.call(() => this.remote.decryptPrivateRecords(conversationId, kind, records));
	}

	/** Encrypts a File or Blob for upload; `meta` goes into the attachment message, `ciphertext` to `uploadUrl`. */
	encryptAttachment(file: Blob, details: AttachmentDetails, options: { onProgress?: ProgressCallback } = {}): Promise<EncryptedAttachment> {
		const onProgress = options.onProgress && proxy(options.onProgress);
		return this.call(() => this.remote.encryptAttachment(file, details, onProgress));
	}

	/** The attachment message of an uploaded file (contract 4.3 step 4): its meta, F included, encrypted in the worker. */
	encryptAttachmentMessage(conversationId: string, ref: string, keyVersion: number): Promise<Envelope> {
		return this.call(() => this.remote.encryptAttachmentMessage(conversationId, ref, keyVersion));
	}

	/**
	 * Decrypts a download as it arrives: pass the `fetch` Response (or its body). The page only reads
	 * it; its bytes move to the worker as transferred buffers. Resolves with a Blob only when the
	 * length and digest check; any failure (network included) is `DECRYPT_FAILED` and leaves no Blob.
	 */
	async decryptAttachmentStream(
		source: Response | ReadableStream<Uint8Array>,
		meta: unknown,
		options: { ciphertextSize?: number; onProgress?: ProgressCallback } = {}
	): Promise<DecryptedAttachment> {
		const stream = bodyOf(source);
		let decryption: { id: string; ciphertextLength: number };
		try {
			decryption = await this.call(() => this.remote.beginAttachmentDecryption(meta, options.ciphertextSize));
		} catch (error) {
			await stream.cancel().catch(() => undefined);
			throw error;
		}
		const progress = new ProgressReporter(decryption.ciphertextLength, options.onProgress);
		let received = 0;
		try {
			await pumpPieces(
				stream,
				(piece) => this.call(() => this.remote.pushAttachmentPiece(decryption.id, transfer(piece, [piece.buffer]))),
				(bytes) => progress.update((received += bytes))
			);
		} catch (error) {
			const reason =
				error instanceof ContractError ? error.message : `the download broke off: ${(error as Error)?.message ?? String(error)}`;
			await this.remote.abortAttachmentDecryption(decryption.id, reason).catch(() => undefined);
			throw error instanceof ContractError ? error : new ContractError('DECRYPT_FAILED', `attachment: ${reason}`);
		}
		const result = await this.call(() => this.remote.finishAttachmentDecryption(decryption.id));
		await progress.finish();
		return result;
	}

	/** The contract 2.2 fingerprint of a public key (b64u), with the display form people compare. */
	fingerprint(publicKey: string): Promise<{ fingerprint: string; display: string }> {
		return this.call(() => this.remote.fingerprint(publicKey));
	}

	/** The exact roster statement (contract 6.7). */
	rosterStatement(roster: RosterInput): Promise<string> {
		return this.call(() => this.remote.rosterStatement(roster));
	}

	/** Throws SIGNATURE_INVALID unless the roster's signature verifies with `signingPublicKey` (contract 6.7). */
	verifyRoster(input: RosterInput & { signature: string; signingPublicKey: string }): Promise<void> {
		return this.call(() => this.remote.verifyRoster(input));
	}

	/** Throws SIGNATURE_INVALID unless the rotation statement's signature verifies (contract 6.6). */
	verifyRotation(input: RotationText & { signature: string; signingPublicKey: string }): Promise<void> {
		return this.call(() => this.remote.verifyRotation(input));
	}

	signRoster(handle: string, roster: RosterInput): Promise<SignedStatement> {
		return this.call(() => this.remote.signRoster(handle, roster));
	}

	signRotation(handle: string, rotation: RotationText): Promise<SignedStatement> {
		return this.call(() => this.remote.signRotation(handle, rotation));
	}

	/** Stops the worker at once; its memory, with every secret, goes with it. Later calls fail. */
	terminate(): void {
		this.worker.terminate();
		this.stop(new Error('the crypto worker was terminated'));
	}
}

/** Starts a crypto worker. Call it in the browser only (e.g. in `onMount`), once per page. */
export function createCryptoWorker(options: CryptoWorkerOptions = {}): CryptoWorkerClient {
	return new CryptoWorkerClient(options);
}
