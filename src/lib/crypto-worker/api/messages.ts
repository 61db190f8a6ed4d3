/**
 * The messages part of the crypto worker's API (contract 4.2, 6.1, 6.2; docs/crypto-worker.md): wraps
 * opened with the agent key, whose conversation keys K stay in the worker, pages of history decrypted in
 * one round trip (and added to the search index, docs/search.md), and replies encrypted as the company.
 */
import type { Envelope } from '../../crypto/message';
import type { Wrap } from '../../crypto/wrap';
import { fail } from '../../errors';
import { decryptHistory, encryptReply } from '../messages';
import { failureOutcome } from '../outcome';
import { indexableMessages } from '../search';
import type { DecryptedItem, HistoryItem, OpenedConversation, Outcome } from '../types';
import type { WorkerState } from './state';

export interface MessagesApi {
	/** Opens a wrap sealed for the agent key behind `handle` (contract 6.1) and caches K; K never leaves the worker. */
	openConversationKey(handle: string, conversationId: string, wrap: Wrap): Promise<OpenedConversation>;
	/** Opens many wraps in one call (a conversation list); each gives its keyVersion or its error code. */
	openConversationKeys(
		handle: string,
		wraps: ReadonlyArray<{ conversationId: string; wrap: Wrap }>
	): Promise<Array<Outcome<OpenedConversation>>>;
	/** Decrypts a page of history in one round trip; each item gives its text or its own error code. */
	decryptHistory(conversationId: string, items: HistoryItem[]): Promise<DecryptedItem[]>;
	/** Encrypts a reply as the company (contract 4.2); retries must resend this same envelope. */
	encryptReply(conversationId: string, text: string, keyVersion: number): Promise<Envelope>;
}

export function createMessagesApi(state: WorkerState): MessagesApi {
	const { session } = state;
	return {
		openConversationKey: (handle, conversationId, wrap) => state.run(() => session.openConversationKey(handle, conversationId, wrap)),
		openConversationKeys: (handle, wraps) =>
			state.run(() => {
				session.require(handle, 'agent');
				if (!Array.isArray(wraps)) fail('INVALID_INPUT', 'wraps must be a list');
				return wraps.map((item): Outcome<OpenedConversation> => {
					try {
						return { ok: true, ...session.openConversationKey(handle, item?.conversationId, item?.wrap) };
					} catch (error) {
						return failureOutcome(error);
					}
				});
			}),
		decryptHistory: (conversationId, items) =>
			state.run(() => {
				const results = decryptHistory(session, state.attachmentRefs, conversationId, items);
				void state.search.add(indexableMessages(conversationId, items, results)).catch(() => undefined);
				return results;
			}),
		encryptReply: (conversationId, text, keyVersion) => state.run(() => encryptReply(session, conversationId, text, keyVersion))
	};
}
