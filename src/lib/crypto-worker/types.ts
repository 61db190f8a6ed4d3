/**
 * The values that cross the worker boundary: handles and public values of keys,
 * history items and their results, attachment results and progress. Types only, so the page can
 * import them without loading the crypto core.
 */
import type { AttachmentMeta } from '../crypto/attachment-meta';
import type { ContractCode } from '../errors';
import type { SenderType } from '../crypto/message';
import type { KeyInfo } from '../keystore/keystore';
import type { KeyKind } from '../keystore/schema';

export type { AttachmentMeta, ContractCode, KeyInfo, KeyKind, SenderType };
export type { Envelope } from '../crypto/message';
export type { Wrap } from '../crypto/wrap';
export type { RosterInput, RosterAgent } from '../crypto/roster';
export type { RotationText } from '../crypto/signatures';

/** An unlocked key: the handle for operations that need its secret, and its public values. */
export interface UnlockedKey extends KeyInfo {
	handle: string;
}

/** What is stored in this browser, and what is unlocked in this worker. */
export interface KeyStoreStatus {
	agent: (KeyInfo & { unlocked: boolean }) | null;
	signing: (KeyInfo & { unlocked: boolean }) | null;
}

/** A key backup file, ready to be saved. */
export interface KeyBackupFile {
	fileName: string;
	/** JSON text. */
	text: string;
}

export interface OpenedConversation {
	conversationId: string;
	keyVersion: number;
}

export type Outcome<T> = ({ ok: true } & T) | { ok: false; code: ContractCode; message: string };

/** One message of a history page (docs/contract-gaps.md §5), as much of it as decryption needs. */
export interface HistoryItem {
	encryption: unknown;
	/** The message's own `senderType` (contract 6.2). */
	senderType: SenderType;
	contentType?: string;
	/** Present for `contentType: attachment`; the meta must name this attachment (contract 4.4). */
	attachment?: { attachmentId: string };
	/** A stored message's id and time: with them its text joins the agent's search index (docs/search.md). */
	messageId?: string;
	createdAt?: string;
}

/**
 * What the page holds of an attachment: the meta's public fields, and `ref`, the whole meta sealed
 * under a key only the worker has (F, the nonce base and the digest never reach the page). Pass it
 * back to download the file or to encrypt the attachment message.
 */
export type AttachmentInfo = Omit<AttachmentMeta, 'key' | 'nonce' | 'digest'> & { ref: string };

/** The text (empty for an attachment), and for attachments the validated meta as `AttachmentInfo`; or the error code of that one message. */
export type DecryptedItem = Outcome<{ text: string; attachment?: AttachmentInfo }>;

export interface Progress {
	/** Bytes processed so far. */
	done: number;
	total: number;
}

export type ProgressCallback = (progress: Progress) => void;

/** What the sender chooses for an attachment (contract 2.6); the worker adds size, key, nonce, digest. */
export interface AttachmentDetails {
	attachmentId: string;
	/** Defaults to the File's name. */
	name?: string;
	/** Defaults to the Blob's type, or application/octet-stream. */
	mime?: string;
	caption?: string;
	width?: number;
	height?: number;
}

export interface EncryptedAttachment {
	/** Exactly `attachmentCiphertextLength(meta.size)` bytes, transferred, for the PUT to `uploadUrl`. */
	ciphertext: ArrayBuffer;
	/** The validated meta, as the page holds it; `encryptAttachmentMessage` makes the attachment message of it (contract 4.3). */
	meta: AttachmentInfo;
}

export interface DecryptedAttachment {
	/** Released only after the length and digest checks; typed with the meta's mime. */
	blob: Blob;
	size: number;
}

export interface SignedStatement {
	statement: string;
	/** b64u of the 64-byte Ed25519 detached signature. */
	signature: string;
	/** b64u of the signing public key that verifies it. */
	signingPublicKey: string;
}
