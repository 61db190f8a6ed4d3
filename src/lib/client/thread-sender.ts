/**
 * Sending in a thread (contract 4.2, 4.3, 5.1): a text or a file becomes an envelope kept
 * in the outbox with its `Idempotency-Key` before the first attempt; attempts resend that same envelope;
 * files are uploaded first (with progress), and a reload finds unconfirmed sends and sends them again.
 * A send that got no answer (the service or the server unreachable, docs/inbox-api.md §11 "Connection
 * and outbox") waits in the outbox and is sent again by itself, with the same key, when the connection
 * returns or on a growing timer; one attempt at a time per send, so the service acts once.
 */
import pMap from 'p-map';
import type { AttachmentInfo } from '../crypto-worker/types';
import type { CryptoWorkerClient } from '../crypto-worker/client';
import { utf8Length } from '../crypto/encoding';
import { ContractError } from '../errors';
import { MAX_MESSAGE_TEXT_BYTES } from '../crypto/message';
import { v1 } from '../wire/v1';
import { uploadAttachment, type TransferProgress } from './attachments';
import { explainError } from './explain';
import { nowIso } from './format';
import { newIdempotencyKey } from './http';
import type { Outbox, PendingSend } from './outbox';
import { v1Call } from './proxy';
import { clientMessageIds, mergeMessages, replaceMessage, type ThreadMessage } from './thread-messages';
import { connectivity, isServerUnreachable } from './connectivity.svelte';
import type { StoredMessage } from './types';

/** The worker calls sending makes (the page's CryptoWorkerClient). */
export type SendCrypto = Pick<CryptoWorkerClient, 'encryptReply' | 'encryptAttachment' | 'encryptAttachmentMessage' | 'decryptHistory'>;

/** What the sender is given of its thread: the conversation, the worker, and the few ways it changes what the thread shows. */
export interface SendingThread {
	readonly conversationId: string;
	readonly crypto: SendCrypto;
	/** The messages the thread shows now. */
	messages(): readonly ThreadMessage[];
	/** Changes what the thread shows (the sender's own messages: added, changed, put in place or removed). */
	show(change: (messages: readonly ThreadMessage[]) => ThreadMessage[]): void;
	/** The version of the open conversation key; throws `CONVERSATION_KEY_NOT_OPEN` when there is none. */
	keyVersion(): number;
	/**
	 * The service stored a send of this agent (its envelope's clientMessageId): its bubble says "You",
	 * and `shown` — the message as the thread now shows it — becomes the conversation's preview.
	 */
	delivered(clientMessageId: string, shown: ThreadMessage | undefined): void;
}

/**
 * The service answered and refused (docs/contract-gaps.md §3 stores answers below 500 per key). A network
 * failure or a 5xx leaves the outcome unknown, so the retry must reuse the same key.
 */
function isDefinitiveRefusal(error: unknown): boolean {
	return error instanceof ContractError && error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 401;
}

/** What a waiting reply says: it goes out by itself. */
const WAITING_FOR_CONNECTION = 'Waiting for the connection: it is sent by itself when the connection returns.';

/** No answer, or the service's or inbox's 5xx: the outcome is unknown and the send waits for the connection. */
export function isWorthWaiting(error: unknown): boolean {
	return isServerUnreachable(error) || (error instanceof ContractError && error.status !== undefined && error.status >= 500);
}

/** One attempt of a send from the outbox: its envelope, with its key (contract 4.2 rule 4, 5.1). */
export function sendPending(entry: PendingSend): Promise<StoredMessage> {
	return v1Call(
		v1.sendMessage({
			conversationId: entry.conversationId,
			contentType: entry.contentType,
			encryption: entry.encryption,
			...(entry.attachment ? { attachment: entry.attachment } : {})
		}),
		{ idempotencyKey: entry.idempotencyKey }
	);
}

/** Uploads of one batch that run at once (each streams through the worker). */
const FILES_UPLOADED_AT_ONCE = 2;

/** After a send waited, the next automatic attempts come this much later (the last one repeats). */
export const RESEND_DELAYS_MS = [5_000, 10_000, 20_000, 30_000];

export class ThreadSender {
	/** Files whose upload has not finished, kept for a retry. */
	private readonly files = new Map<string, File>();
	/** Sends with an attempt under way: never two attempts of one send at once. */
	private readonly delivering = new Set<string>();
	private resendTimer: ReturnType<typeof setTimeout> | undefined;
	private resendAttempt = 0;
	private stopped = false;

	constructor(
		private readonly thread: SendingThread,
		private readonly outbox: Outbox
	) {}

	/** Stored copies of our sends (from the history or a live event) need no retry any more. */
	confirmStored(messages: readonly ThreadMessage[]): void {
		const stored = clientMessageIds(messages.filter((m) => m.senderType === 'company'));
		for (const entry of this.outbox.list(this.thread.conversationId))
			if (stored.has(entry.encryption.clientMessageId)) this.outbox.remove(entry.localId);
	}

	/** The thread closed: forget files, stop resending (the outbox keeps what waits for the next page or thread). */
	stop(): void {
		this.stopped = true;
		this.files.clear();
		clearTimeout(this.resendTimer);
	}

	/** The connection is back: what waits is sent now. */
	connectionReturned(): void {
		this.resendAttempt = 0;
		this.resendQueued({ evenIfDown: true });
	}

	private resendQueued(options?: { evenIfDown: boolean }): void {
		clearTimeout(this.resendTimer);
		this.resendTimer = undefined;
		if (this.stopped) return;
		const queued = new Set(
			this.thread
				.messages()
				.filter((m) => m.state === 'queued')
				.map((m) => m.key)
		);
		for (const entry of this.outbox.list(this.thread.conversationId)) if (queued.has(entry.localId)) void this.deliver(entry, options);
	}

	private scheduleResend(): void {
		if (this.stopped || this.resendTimer) return;
		const delay = RESEND_DELAYS_MS[Math.min(this.resendAttempt, RESEND_DELAYS_MS.length - 1)];
		this.resendAttempt++;
		this.resendTimer = setTimeout(() => this.resendQueued(), delay);
	}

	/** Encrypts and sends a text; the composer may clear once this resolves (the send continues). */
	async sendText(text: string): Promise<void> {
		if (text.trim() === '') return;
		const bytes = utf8Length(text);
		if (bytes > MAX_MESSAGE_TEXT_BYTES) {
			throw new ContractError('INVALID_INPUT', `A message can hold at most 65,536 bytes; this one has ${bytes.toLocaleString()}.`);
		}
		const keyVersion = this.thread.keyVersion();
		const encryption = await this.thread.crypto.encryptReply(this.thread.conversationId, text, keyVersion);
		const entry: PendingSend = {
			localId: `local_${newIdempotencyKey('m')}`,
			conversationId: this.thread.conversationId,
			idempotencyKey: newIdempotencyKey('send'),
			contentType: 'text',
			encryption,
			createdAt: nowIso()
		};
		this.outbox.put(entry);
		this.append([this.localMessage(entry, { text })]);
		void this.deliver(entry);
	}

	private localMessage(entry: PendingSend, content: Partial<ThreadMessage>): ThreadMessage {
		return {
			key: entry.localId,
			messageId: null,
			seq: null,
			senderType: 'company',
			contentType: entry.contentType,
			createdAt: entry.createdAt,
			state: 'sending',
			clientMessageId: entry.encryption.clientMessageId,
			...content
		};
	}

	/** Adds messages of this page (a send being made, or restored after a reload) at the end of the thread. */
	private append(messages: readonly ThreadMessage[]): void {
		this.thread.show((shown) => [...shown, ...messages]);
	}

	/** Changes (or with null removes) the send with this key. */
	private replace(key: string, change: (message: ThreadMessage) => ThreadMessage | null): void {
		this.thread.show((shown) => replaceMessage(shown, key, change));
	}

	/** One attempt: always the same envelope; the same Idempotency-Key unless the service refused the last attempt (contract 4.2 rule 4, 5.1). */
	private async deliver(entry: PendingSend, { evenIfDown }: { evenIfDown: boolean } = { evenIfDown: false }): Promise<void> {
		if (this.delivering.has(entry.localId)) return;
		// while the page knows a connection is down the reply says at once that it waits, and is not tried
		// unless the agent asks ("Try now") or the connection is heard returning
		const state = connectivity.state;
		if (!evenIfDown && (state === 'offline' || state === 'server-unreachable' || state === 'service-unreachable')) {
			this.replace(entry.localId, (m) => ({
				...m,
				state: 'queued',
				progress: null,
				sendError: WAITING_FOR_CONNECTION,
				sendErrorCode: undefined
			}));
			return;
		}
		this.delivering.add(entry.localId);
		this.replace(entry.localId, (m) => ({ ...m, state: 'sending', sendError: undefined, sendErrorCode: undefined }));
		try {
			const stored = await sendPending(entry);
			this.outbox.remove(entry.localId);
			const already = this.thread.messages().some((m) => m.messageId === stored.messageId);
			this.replace(entry.localId, (m) =>
				already
					? null
					: {
							...m,
							key: stored.messageId,
							messageId: stored.messageId,
							seq: stored.seq,
							createdAt: stored.createdAt,
							state: 'sent',
							attachmentRef: stored.attachment,
							progress: null
						}
			);
			// a stored send takes its place by `seq`
			this.thread.show((messages) => mergeMessages(messages, []));
			const shown = this.thread.messages().find((m) => m.messageId === stored.messageId);
			this.thread.delivered(entry.encryption.clientMessageId, shown);
		} catch (error) {
			// a refusal (4xx) is an answer the service keeps for this key: the next attempt needs a new key,
			// while the unchanged envelope (its clientMessageId) still makes the service return any stored copy
			if (isDefinitiveRefusal(error)) this.outbox.put({ ...entry, idempotencyKey: newIdempotencyKey('send') });
			const waiting = isWorthWaiting(error);
			this.replace(entry.localId, (m) => ({
				...m,
				state: waiting ? 'queued' : 'failed',
				progress: null,
				sendError: waiting ? WAITING_FOR_CONNECTION : explainError(error),
				sendErrorCode: error instanceof ContractError ? error.code : undefined
			}));
			if (waiting) this.scheduleResend();
		} finally {
			this.delivering.delete(entry.localId);
		}
	}

	/**
	 * Sends files in the order given (contract 4.3): each is shown at once, uploaded (two at a time,
	 * with progress), and its message is sent only after the one before it, so they arrive in that order.
	 */
	async sendFiles(items: ReadonlyArray<{ file: File; caption?: string }>): Promise<void> {
		const keyVersion = this.thread.keyVersion();
		const started = items.map(({ file, caption }) => ({ file, caption, localId: this.showUpload(file, caption) }));
		// each file's turn to send its message comes when the one before it has had its own
		const turns = started.map(() => {
			let done!: () => void;
			const over = new Promise<void>((resolve) => (done = resolve));
			return { over, done };
		});
		await pMap(
			started,
			async ({ file, caption, localId }, index) => {
				try {
					const entry = await this.upload(localId, file, keyVersion, caption);
					await turns[index - 1]?.over;
					if (entry) await this.deliver(entry);
				} finally {
					turns[index].done();
				}
			},
			{ concurrency: FILES_UPLOADED_AT_ONCE }
		);
	}

	/** The placeholder of a file being sent, with its caption; returns its local id. */
	private showUpload(file: File, caption?: string): string {
		const localId = `local_${newIdempotencyKey('f')}`;
		this.files.set(localId, file);
		this.append([
			{
				key: localId,
				messageId: null,
				seq: null,
				senderType: 'company',
				contentType: 'attachment',
				createdAt: nowIso(),
				state: 'sending',
				localFile: file,
				attachment: { name: file.name, mime: file.type, size: file.size, ...(caption ? { caption } : {}) } as AttachmentInfo,
				progress: { phase: 'preparing', done: 0, total: file.size }
			}
		]);
		return localId;
	}

	/** Encrypts and uploads a file, then keeps its message in the outbox; null when the upload failed (shown on its bubble). */
	private async upload(localId: string, file: File, keyVersion: number, caption?: string): Promise<PendingSend | null> {
		this.replace(localId, (m) => ({ ...m, state: 'sending', sendError: undefined, sendErrorCode: undefined }));
		let uploaded;
		try {
			uploaded = await uploadAttachment(this.thread.crypto, this.thread.conversationId, file, {
				caption,
				onProgress: (progress: TransferProgress) => this.replace(localId, (m) => ({ ...m, progress }))
			});
		} catch (error) {
			this.replace(localId, (m) => ({
				...m,
				state: 'failed',
				progress: null,
				sendError: explainError(error),
				sendErrorCode: error instanceof ContractError ? error.code : undefined
			}));
			return null;
		}
		const encryption = await this.thread.crypto.encryptAttachmentMessage(this.thread.conversationId, uploaded.meta.ref, keyVersion);
		const entry: PendingSend = {
			localId,
			conversationId: this.thread.conversationId,
			idempotencyKey: newIdempotencyKey('send'),
			contentType: 'attachment',
			encryption,
			attachment: { attachmentId: uploaded.attachmentId },
			createdAt: nowIso()
		};
		this.outbox.put(entry);
		this.files.delete(localId);
		this.replace(localId, (m) => ({ ...m, attachment: uploaded.meta, clientMessageId: encryption.clientMessageId, progress: null }));
		return entry;
	}

	/** Retries a failed send: the stored envelope and key, or the whole upload if it never finished. */
	async retry(localId: string): Promise<void> {
		const entry = this.outbox.list(this.thread.conversationId).find((e) => e.localId === localId);
		if (entry) return this.deliver(entry, { evenIfDown: true });
		const file = this.files.get(localId);
		if (file) {
			const keyVersion = this.thread.keyVersion();
			const caption = this.thread.messages().find((m) => m.key === localId)?.attachment?.caption;
			const uploaded = await this.upload(localId, file, keyVersion, caption);
			if (uploaded) await this.deliver(uploaded, { evenIfDown: true });
		}
	}

	/** Drops a failed send the agent does not want to retry. */
	discard(localId: string): void {
		this.outbox.remove(localId);
		this.files.delete(localId);
		this.replace(localId, () => null);
	}

	/** Sends left unconfirmed by a previous page (a reload): shown again, decrypted, and retried once. */
	async restorePending(): Promise<void> {
		const pending = this.outbox.list(this.thread.conversationId);
		if (pending.length === 0) return;
		const results = await this.thread.crypto.decryptHistory(
			this.thread.conversationId,
			pending.map((entry) => ({
				encryption: entry.encryption,
				senderType: 'company',
				contentType: entry.contentType,
				...(entry.attachment ? { attachment: entry.attachment } : {})
			}))
		);
		const sentIds = clientMessageIds(this.thread.messages());
		const restored = pending
			.map((entry, index) => ({ entry, result: results[index] }))
			.filter(({ entry }) => !this.thread.messages().some((m) => m.key === entry.localId));
		for (const { entry } of restored.filter(({ entry }) => sentIds.has(entry.encryption.clientMessageId)))
			this.outbox.remove(entry.localId);
		const shown = restored.filter(({ entry }) => !sentIds.has(entry.encryption.clientMessageId));
		this.append(
			shown.map(({ entry, result }) =>
				this.localMessage(
					entry,
					result.ok ? { text: result.attachment ? result.attachment.caption : result.text, attachment: result.attachment } : {}
				)
			)
		);
		for (const { entry } of shown) void this.deliver(entry);
	}
}
