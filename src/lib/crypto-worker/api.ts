/**
 * The crypto worker's API: the key store and every secret operation of the browser
 * half of the contract (6.1 wraps, 6.2/6.5 messages and attachments, 6.6/6.7 signatures). Secrets
 * stay here; the page gets handles, public values, texts, envelopes and transferred bytes.
 */
import { transfer } from 'comlink';
import { b64uDecode } from '../crypto/encoding';
import { checkEd25519SecretKey, fingerprintB64u, fingerprintDisplay, parseKeyFile } from '../crypto/keys';
import { rosterStatement, verifyRoster, type RosterInput } from '../crypto/roster';
import { verifyRotation, type RotationText } from '../crypto/signatures';
import { fail } from '../errors';
import { initCrypto } from '../crypto/sodium';
import { requireId } from '../crypto/rules';
import { backupFileName, formatBackup } from '../keystore/backup';
import { KeyStore, type OpenedKey } from '../keystore/keystore';
import type { Draft } from '../keystore/drafts';
import { KEYSTORE_DATABASE, type KeyKind } from '../keystore/schema';
import { AttachmentDownloads } from './attachment-download';
import { AttachmentRefs, metaOf } from './attachment-refs';
import { browserChunkWorkerPool, chunkWorkerCount as defaultChunkWorkerCount } from './pipeline/browser-workers';
import type { ChunkWorkerPool } from './pipeline/pool';
import { encryptFile } from './attachment-upload';
import { decryptHistory, encryptReply } from './messages';
import { indexableMessages, SearchKeeper } from './search';
import { decryptRecords, encryptRecord } from './private-records';
import { sealPendingProfile } from '../crypto/pending-profile';
import type { PrivateEnvelope, PrivateRecordKind } from '../crypto/private-record';
import { failureOutcome } from './outcome';
import { KeySession, type HeldKey } from './session';
import { signRosterStatement, signRotationStatement } from './signing';
import type {
	AttachmentDetails,
	DecryptedAttachment,
	DecryptedItem,
	EncryptedAttachment,
	HistoryItem,
	KeyBackupFile,
	KeyStoreStatus,
	OpenedConversation,
	Outcome,
	ProgressCallback,
	SignedStatement,
	UnlockedKey
} from './types';
import type { Envelope } from '../crypto/message';
import type { Wrap } from '../crypto/wrap';

/** A File or Blob is read here, so a key file's bytes never sit in page memory; text is accepted too. */
async function readText(input: Blob | string, what: string): Promise<string> {
	if (typeof input === 'string') return input;
	if (input instanceof Blob) return input.text();
	return fail('INVALID_INPUT', `${what} must be a File, a Blob or text`);
}

function unlocked(key: HeldKey): UnlockedKey {
	return { ...key.info, handle: key.handle };
}

export interface WorkerApiOptions {
	/** Starts `size` chunk workers for attachments (Web Workers unless given: Node tests pass threads). */
	startChunkWorkers?: (size: number) => ChunkWorkerPool;
}

/** The most chunk workers a page may ask for. */
export const MAX_CHUNK_WORKERS = 16;

export function createWorkerApi(options: WorkerApiOptions = {}) {
	const ready = initCrypto();
	const session = new KeySession();
	let chunkWorkerPool: ChunkWorkerPool | undefined;
	let chunkWorkerCount: number | undefined;
	/** Started at the first attachment, then kept for the life of the worker. */
	const chunkWorkers = () =>
		(chunkWorkerPool ??= (options.startChunkWorkers ?? browserChunkWorkerPool)(
			chunkWorkerCount ?? defaultChunkWorkerCount(navigator.hardwareConcurrency)
		));
	const downloads = new AttachmentDownloads(chunkWorkers);
	const attachmentRefs = new AttachmentRefs();
	let store = new KeyStore();
	const search = new SearchKeeper(() => store.searchIndex);

	/** Runs after libsodium is loaded; every method goes through here. */
	const run = async <T>(operation: () => T | Promise<T>): Promise<T> => {
		await ready;
		return operation();
	};
	const hold = (opened: OpenedKey) => unlocked(session.hold(opened));

	return {
		/** Resolves once libsodium is loaded. */
		ready: () => run(() => true as const),

		/**
		 * Uses the key store of one account (`inbox-keystore:<accountId>`), or the default one with
		 * null; locks everything first.
		 */
		selectAccount: (accountId: string | null) =>
			run(async () => {
				const name = accountId === null ? KEYSTORE_DATABASE : `${KEYSTORE_DATABASE}:${requireId(accountId, 'accountId')}`;
				session.lock();
				downloads.abortAll();
				attachmentRefs.forget();
				await search.lock();
				await store.close();
				store = new KeyStore(name);
			}),

		/** What is stored here (public values) and what is unlocked in this worker. */
		status: () =>
			run(async (): Promise<KeyStoreStatus> => {
				const [agent, signing] = await Promise.all([store.info('agent'), store.info('signing')]);
				return {
					agent: agent && { ...agent, unlocked: session.isUnlocked('agent') },
					signing: signing && { ...signing, unlocked: session.isUnlocked('signing') }
				};
			}),

		/** Generates and stores the agent's X25519 key pair and `agentKeyId`; returns it unlocked. */
		createAgentKey: (passphrase: string) => run(async () => hold(await store.createAgentKey(passphrase))),

		/**
		 * Imports the admin's `signing.key` (64 bytes, libsodium layout) after checking it against the
		 * expected `signing.pub` the page got from the server; refuses a mismatch with `INVALID_INPUT`.
		 */
		importSigningKey: (input: { signingKey: Blob | string; expectedPublicKey: Blob | string; passphrase: string; replace?: boolean }) =>
			run(async () => {
				if (typeof input !== 'object' || input === null)
					fail('INVALID_INPUT', 'the signing key import needs signingKey, expectedPublicKey and passphrase');
				const expected = parseKeyFile(await readText(input.expectedPublicKey, 'signing.pub'), 32, 'signing.pub');
				const secretKey = parseKeyFile(await readText(input.signingKey, 'signing.key'), 64, 'signing.key');
				try {
					checkEd25519SecretKey(secretKey, expected);
					return hold(await store.storeSigningKey(secretKey, input.passphrase, { replace: input.replace }));
				} finally {
					secretKey.fill(0);
				}
			}),

		/** Opens a stored key with its passphrase (`WRONG_PASSPHRASE` changes nothing). */
		unlock: (kind: KeyKind, passphrase: string) => run(async () => hold(await store.unlock(kind, passphrase))),

		/** Wipes every secret, conversation key and running attachment decryption; every handle becomes invalid. */
		lock: () =>
			run(async () => {
				session.lock();
				downloads.abortAll();
				attachmentRefs.forget();
				await search.lock();
			}),

		/** Re-seals a stored key under a new passphrase, atomically. */
		changePassphrase: (kind: KeyKind, oldPassphrase: string, newPassphrase: string) =>
			run(() => store.changePassphrase(kind, oldPassphrase, newPassphrase)),

		/** The encrypted backup file of a stored key; its passphrase is the key's current one. */
		exportBackup: (kind: KeyKind, passphrase: string) =>
			run(async (): Promise<KeyBackupFile> => {
				const backup = await store.exportBackup(kind, passphrase);
				return { fileName: backupFileName(backup), text: formatBackup(backup) };
			}),

		/** Restores a backup file into this browser and unlocks it. */
		importBackup: (backup: Blob | string, passphrase: string, options: { replace?: boolean } = {}) =>
			run(async () => hold(await store.importBackup(await readText(backup, 'backup'), passphrase, options))),

		/** Deletes a stored key and wipes it (and, for the agent key, every conversation key) from memory. */
		deleteKey: (kind: KeyKind) =>
			run(async () => {
				const existed = await store.delete(kind);
				session.forget(kind);
				return existed;
			}),

		/**
		 * Keeps the draft of a conversation sealed under the device key (docs/crypto-worker.md "Drafts");
		 * drafts are written and read only while the agent key is unlocked, so nothing lands after a lock.
		 */
		saveDraft: (conversationId: string, draft: Draft) =>
			run(() => {
				session.requireUnlocked('agent');
				return store.drafts.save(conversationId, draft);
			}),

		loadDraft: (conversationId: string) =>
			run(() => {
				session.requireUnlocked('agent');
				return store.drafts.load(conversationId);
			}),

		removeDraft: (conversationId: string) => run(() => store.drafts.remove(conversationId)),

		/** Removes every draft of this account (sign-out). */
		clearDrafts: () => run(() => store.drafts.clear()),

		/** Opens a wrap sealed for the agent (contract 6.1) and caches K; K never leaves the worker. */
		openConversationKey: (handle: string, conversationId: string, wrap: Wrap) =>
			run((): OpenedConversation => session.openConversationKey(handle, conversationId, wrap)),

		/** Opens many wraps in one call (a conversation list); each gives its keyVersion or its error code. */
		openConversationKeys: (handle: string, wraps: ReadonlyArray<{ conversationId: string; wrap: Wrap }>) =>
			run((): Array<Outcome<OpenedConversation>> => {
				session.require(handle, 'agent');
				if (!Array.isArray(wraps)) fail('INVALID_INPUT', 'wraps must be a list');
				return wraps.map((item) => {
					try {
						return { ok: true, ...session.openConversationKey(handle, item?.conversationId, item?.wrap) };
					} catch (error) {
						return failureOutcome(error);
					}
				});
			}),

		/** Decrypts a page of history in one round trip; each item gives its text or its own error code. */
		decryptHistory: (conversationId: string, items: HistoryItem[]) =>
			run((): DecryptedItem[] => {
				const results = decryptHistory(session, attachmentRefs, conversationId, items);
				void search.add(indexableMessages(conversationId, items, results)).catch(() => undefined);
				return results;
			}),

		/** Searches the decrypted messages this agent's browser has seen (docs/search.md); only while unlocked. */
		searchMessages: (query: string, limit?: number) =>
			run(() => {
				session.requireUnlocked('agent');
				if (typeof query !== 'string') fail('INVALID_INPUT', 'query must be a string');
				return search.search(query, limit);
			}),

		/** How far each conversation is indexed, and how many messages are. */
		searchStatus: () =>
			run(async () => {
				session.requireUnlocked('agent');
				return { coverage: await search.coverage(), documents: await search.size(), conversations: await search.conversations() };
			}),

		/** Everything of the conversation up to this message is indexed (the history pass got there). */
		markSearchCovered: (conversationId: string, messageId: string) =>
			run(() => {
				session.requireUnlocked('agent');
				return search.covered(requireId(conversationId, 'conversationId'), requireId(messageId, 'messageId'));
			}),

		/** Forgets conversations this agent can no longer read. */
		forgetSearch: (conversationIds: string[]) =>
			run(() => {
				session.requireUnlocked('agent');
				return search.forget(conversationIds.map((id) => requireId(id, 'conversationId')));
			}),

		/** Deletes the index, in memory and at rest (sign-out). */
		clearSearch: () => run(() => search.clear()),

		/** Encrypts a reply as the company (contract 4.2); retries must resend this same envelope. */
		encryptReply: (conversationId: string, text: string, keyVersion: number) =>
			run((): Envelope => encryptReply(session, conversationId, text, keyVersion)),

		/** Encrypts a note or the customer's profile under the conversation's key (docs/private-records.md). */
		encryptPrivateRecord: (input: { kind: PrivateRecordKind; conversationId: string; authorId: string; text: string }) =>
			run((): PrivateEnvelope => encryptRecord(session, input)),

		/** Seals a profile written with an invitation to the company key (docs/private-records.md); no secret is involved. */
		sealPendingProfile: (input: { conversationId: string; authorId: string; text: string; companyPublicKey: string }) =>
			run((): string => sealPendingProfile({ ...input, companyPublicKey: b64uDecode(input.companyPublicKey, 'companyPublicKey') })),

		/** Decrypts a conversation's notes or profile versions; each gives its text or its own error code. */
		decryptPrivateRecords: (conversationId: string, kind: PrivateRecordKind, records: Array<{ authorId: string; envelope: unknown }>) =>
			run((): Array<Outcome<{ text: string }>> => decryptRecords(session, conversationId, kind, records)),

		/** How many chunk workers attachments use, instead of one per core beside this worker; only before the first attachment. */
		useChunkWorkers: (count: number) =>
			run(() => {
				if (!Number.isInteger(count) || count < 1 || count > MAX_CHUNK_WORKERS)
					fail('INVALID_INPUT', `chunkWorkers must be an integer from 1 to ${MAX_CHUNK_WORKERS}`);
				if (chunkWorkerPool) fail('INVALID_INPUT', 'the chunk workers are already running');
				chunkWorkerCount = count;
			}),

		/** Encrypts a file for upload (contract 4.3 step 2); the ciphertext comes back transferred. */
		encryptAttachment: (file: Blob, details: AttachmentDetails, onProgress?: ProgressCallback) =>
			run(async (): Promise<EncryptedAttachment> => {
				const { ciphertext, meta } = await encryptFile(chunkWorkers(), file, details, onProgress);
				return transfer({ ciphertext, meta: attachmentRefs.seal(meta) }, [ciphertext]);
			}),

		/** The attachment message (contract 4.3 step 4): the meta behind `ref`, F included, encrypted as a reply. */
		encryptAttachmentMessage: (conversationId: string, ref: string, keyVersion: number) =>
			run((): Envelope => encryptReply(session, conversationId, JSON.stringify(attachmentRefs.open(ref)), keyVersion)),

		/**
		 * Streamed attachment decryption (contract 4.4 step 4, 6.5), driven by the client's
		 * `decryptAttachmentStream`: begin with the meta, push the download's pieces in order as
		 * transferred buffers (each comes back for reuse), then finish to get the checked Blob.
		 */
		beginAttachmentDecryption: (meta: unknown, ciphertextSize?: number) =>
			run(() => downloads.begin(metaOf(attachmentRefs, meta), ciphertextSize)),
		pushAttachmentPiece: (id: string, piece: Uint8Array) => run(() => downloads.push(id, piece)),
		finishAttachmentDecryption: (id: string) => run((): Promise<DecryptedAttachment> => downloads.finish(id)),
		abortAttachmentDecryption: (id: string, reason?: string) => run(() => downloads.abort(id, reason)),

		/** Signs the agent roster statement (contract 6.7) with the signing key behind `handle`. */
		signRoster: (handle: string, roster: RosterInput) =>
			run((): SignedStatement => signRosterStatement(session.require(handle, 'signing'), roster)),

		/** Signs the company key rotation statement (contract 6.6) with the signing key behind `handle`. */
		signRotation: (handle: string, rotation: RotationText) =>
			run((): SignedStatement => signRotationStatement(session.require(handle, 'signing'), rotation)),

		/** The contract 2.2 fingerprint of a public key: b64u and the display form people compare. */
		fingerprint: (publicKey: string) =>
			run(() => {
				const key = b64uDecode(publicKey, 'publicKey');
				return { fingerprint: fingerprintB64u(key), display: fingerprintDisplay(key) };
			}),

		/** The exact roster statement (contract 6.7) the page shows before signing. */
		rosterStatement: (roster: RosterInput) => run(() => rosterStatement(roster)),

		/** Checks a roster's signature with `signing.pub` (contract 6.7); throws SIGNATURE_INVALID. */
		verifyRoster: (input: RosterInput & { signature: string; signingPublicKey: string }) =>
			run(() => verifyRoster(input, b64uDecode(input.signingPublicKey, 'signingPublicKey'))),

		/** Checks a key rotation statement's signature with `signing.pub` (contract 6.6). */
		verifyRotation: (input: RotationText & { signature: string; signingPublicKey: string }) =>
			run(() =>
				verifyRotation(
					{
						companyId: input.companyId,
						fromKeyVersion: input.fromKeyVersion,
						fromPublicKey: b64uDecode(input.fromPublicKey, 'fromPublicKey'),
						toKeyVersion: input.toKeyVersion,
						toPublicKey: b64uDecode(input.toPublicKey, 'toPublicKey')
					},
					input.signature,
					b64uDecode(input.signingPublicKey, 'signingPublicKey')
				)
			)
	};
}

export type CryptoWorkerApi = ReturnType<typeof createWorkerApi>;
