/**
 * The messages of a thread as the page shows them: received and sent history items
 * with their decrypted text or attachment meta, or the code of the failure in place; local sends with
 * their state. Pure functions: which items to decrypt, and merging pages without duplicates.
 */
import type { AttachmentInfo } from '../crypto-worker/types';
import type { ContractCode } from '../errors';
import type { DecryptedItem, HistoryItem as WorkerHistoryItem } from '../crypto-worker/types';
import type { StoredMessage } from '../inbox-api/records';
import type { TransferProgress } from './attachments';

/** The content types this inbox shows; any other is ignored (contract 2.5, 9 rule 2). */
export const KNOWN_CONTENT_TYPES: ReadonlySet<string> = new Set(['text', 'attachment']);

/** `queued`: the service or the server could not be reached; the outbox sends it by itself when it can. */
export type DeliveryState = 'received' | 'sending' | 'queued' | 'sent' | 'failed';

export interface ThreadMessage {
	/** messageId for stored messages, the local id for sends not confirmed yet. */
	key: string;
	messageId: string | null;
	seq: number | null;
	senderType: 'user' | 'company';
	contentType: 'text' | 'attachment';
	createdAt: string;
	state: DeliveryState;
	text?: string;
	/** The decrypted, validated meta of an attachment message. */
	attachment?: AttachmentInfo;
	/** The clear reference of the service (`attachment` of the history item, size in ciphertext bytes). */
	attachmentRef?: { attachmentId: string; size: number } | null;
	/** The code and its explanation when this message cannot be shown. */
	problem?: { code: ContractCode | string; message: string };
	/** Why the last send attempt failed, said plainly. */
	sendError?: string;
	sendErrorCode?: string;
	/** The envelope's id, to match a send with its stored copy. */
	clientMessageId?: string;
	/** For files the agent is sending: the file itself and the upload's progress. */
	localFile?: Blob;
	progress?: TransferProgress | null;
}

/** Ids of the stored messages already shown with their content (a failed one may be retried). */
export function shownMessageIds(messages: readonly ThreadMessage[]): ReadonlySet<string> {
	return new Set(messages.filter((m) => m.messageId && !m.problem).map((m) => m.messageId as string));
}

/** The clientMessageIds a thread already holds, to drop local copies of sends that are stored. */
export function clientMessageIds(messages: readonly ThreadMessage[]): ReadonlySet<string | undefined> {
	return new Set(messages.map((m) => m.clientMessageId));
}

/** What the worker decrypts of a stored message; its id and time let the text join the search index. */
export function toWorkerItem(item: StoredMessage): WorkerHistoryItem {
	return {
		encryption: item.encryption,
		senderType: item.senderType,
		contentType: item.contentType,
		...(item.attachment ? { attachment: { attachmentId: item.attachment.attachmentId } } : {}),
		messageId: item.messageId,
		createdAt: item.createdAt
	};
}

/** No message shown yet (the history pass of search decrypts every page it reads). */
export const NOTHING_SHOWN: ReadonlySet<string> = new Set();

/** The items of a page worth decrypting: known content types only, never seen before. */
export function itemsToDecrypt(items: readonly StoredMessage[], known: ReadonlySet<string>): StoredMessage[] {
	return items.filter((item) => KNOWN_CONTENT_TYPES.has(item.contentType) && !known.has(item.messageId));
}

/** A history item with its decryption result, as a thread message. */
export function toThreadMessage(item: StoredMessage, result: DecryptedItem, explain: (code: string) => string): ThreadMessage {
	const base: ThreadMessage = {
		key: item.messageId,
		messageId: item.messageId,
		seq: item.seq,
		senderType: item.senderType,
		contentType: item.contentType as 'text' | 'attachment',
		createdAt: item.createdAt,
		state: item.senderType === 'company' ? 'sent' : 'received',
		attachmentRef: item.attachment,
		clientMessageId: (item.encryption as { clientMessageId?: string })?.clientMessageId
	};
	if (!result.ok) return { ...base, problem: { code: result.code, message: explain(result.code) } };
	if (item.contentType === 'attachment') return { ...base, attachment: result.attachment, text: result.attachment?.caption };
	return { ...base, text: result.text };
}

/** The messages with the one whose key is `key` changed by `change`, or left out when `change` gives null. */
export function replaceMessage(
	messages: readonly ThreadMessage[],
	key: string,
	change: (message: ThreadMessage) => ThreadMessage | null
): ThreadMessage[] {
	return messages.flatMap((message) => {
		if (message.key !== key) return [message];
		const changed = change(message);
		return changed ? [changed] : [];
	});
}

/**
 * Adds stored messages to a thread: one copy per messageId, a local send replaced by its stored copy
 * (same clientMessageId), stored messages in `seq` order, local sends after them.
 */
export function mergeMessages(current: readonly ThreadMessage[], incoming: readonly ThreadMessage[]): ThreadMessage[] {
	const byId = new Map<string, ThreadMessage>();
	const local: ThreadMessage[] = [];
	for (const message of current) {
		if (message.messageId) byId.set(message.messageId, message);
		else local.push(message);
	}
	for (const message of incoming) {
		if (!message.messageId) continue;
		const existing = byId.get(message.messageId);
		// a send we made keeps its local text and file; the stored copy adds its id and seq
		byId.set(message.messageId, existing?.localFile || existing?.state === 'sent' ? { ...message, ...keepLocal(existing) } : message);
	}
	const sentIds = new Set([...byId.values()].map((message) => message.clientMessageId).filter(Boolean));
	const stored = [...byId.values()].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
	return [...stored, ...local.filter((message) => !message.clientMessageId || !sentIds.has(message.clientMessageId))];
}

function keepLocal(message: ThreadMessage | undefined): Partial<ThreadMessage> {
	if (!message) return {};
	const kept: Partial<ThreadMessage> = {};
	if (message.localFile) kept.localFile = message.localFile;
	if (message.text !== undefined && !message.problem) kept.text = message.text;
	if (message.attachment) kept.attachment = message.attachment;
	return kept;
}
