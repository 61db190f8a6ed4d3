/**
 * Messages in the worker (contract 4.2, 4.4, 6.2, 6.5): a page of history decrypted in one call,
 * each item giving its text (or, for an attachment, its validated meta as the page may hold it) or
 * its own error code; and the encryption of a reply as the company, with a fresh nonce and a `srv_` id.
 */
import { parseReceivedAttachmentMeta } from '../crypto/attachment-meta';
import { fail } from '../errors';
import { decryptMessage, encryptMessage, newClientMessageId, type Envelope } from '../crypto/message';
import { requireId } from '../crypto/rules';
import { failureOutcome } from './outcome';
import type { AttachmentRefs } from './attachment-refs';
import type { KeySession } from './session';
import type { DecryptedItem, HistoryItem } from './types';

/** A history page is at most 200 messages (docs/contract-gaps.md §5); this leaves room for merged pages. */
export const MAX_HISTORY_BATCH = 5000;

function decryptItem(key: Uint8Array, conversationId: string, item: HistoryItem, refs: AttachmentRefs): DecryptedItem {
	try {
		const text = decryptMessage(item?.encryption, { conversationKey: key, conversationId, senderType: item?.senderType });
		// Stryker disable next-line OptionalChaining: equivalent: without an item, decryptMessage on the line before has failed already
		if (item?.contentType !== 'attachment') return { ok: true, text };
		const attachmentId = item.attachment?.attachmentId;
		if (typeof attachmentId !== 'string') fail('INVALID_INPUT', 'an attachment message must carry attachment.attachmentId');
		// The text is the meta, F included: the page gets its public fields and a sealed reference.
		return { ok: true, text: '', attachment: refs.seal(parseReceivedAttachmentMeta(text, attachmentId)) };
	} catch (error) {
		return failureOutcome(error);
	}
}

/** Decrypts every item with the conversation's open key; one item's failure never hides another's text. */
export function decryptHistory(
	session: KeySession,
	refs: AttachmentRefs,
	conversationId: string,
	items: readonly HistoryItem[]
): DecryptedItem[] {
	requireId(conversationId, 'conversationId');
	if (!Array.isArray(items)) fail('INVALID_INPUT', 'items must be a list');
	if (items.length > MAX_HISTORY_BATCH) fail('INVALID_INPUT', `at most ${MAX_HISTORY_BATCH} items per call, got ${items.length}`);
	const { key } = session.conversationKey(conversationId);
	return items.map((item) => decryptItem(key, conversationId, item, refs));
}

/**
 * Encrypts a reply (contract 4.2): sender `company`, a fresh random nonce, `srv_` + 16 random
 * bytes as `clientMessageId`, and the keyVersion of the opened wrap, which `keyVersion` must equal.
 */
export function encryptReply(session: KeySession, conversationId: string, text: string, keyVersion: number): Envelope {
	requireId(conversationId, 'conversationId');
	const entry = session.conversationKey(conversationId);
	if (keyVersion !== entry.keyVersion) {
		fail('KEY_MISMATCH', `the open key of ${conversationId} has keyVersion ${entry.keyVersion}, not ${String(keyVersion)}`);
	}
	return encryptMessage({
		conversationKey: entry.key,
		conversationId,
		senderType: 'company',
		clientMessageId: newClientMessageId(),
		keyVersion: entry.keyVersion,
		text
	});
}
