/**
 * The search part of the crypto worker's API (docs/search.md): full-text search over the messages this
 * agent's browser has decrypted, how far each conversation is indexed, and forgetting. Only while the
 * agent key is unlocked; the page sees hits with snippets, never the index.
 */
import { requireId } from '../../crypto/rules';
import { fail } from '../../errors';
import type { SearchHit } from '../../search/message-index';
import type { WorkerState } from './state';

export interface SearchApi {
	/** Searches the messages decrypted in this browser. */
	searchMessages(query: string, limit?: number): Promise<SearchHit[]>;
	/** How far each conversation is indexed, and how many messages are. */
	searchStatus(): Promise<{ coverage: Record<string, string>; documents: number; conversations: string[] }>;
	/** Everything of the conversation up to this message is indexed (the history pass got there). */
	markSearchCovered(conversationId: string, messageId: string): Promise<void>;
	/** Forgets conversations this agent can no longer read. */
	forgetSearch(conversationIds: string[]): Promise<void>;
	/** Deletes the index, in memory and at rest (sign-out). */
	clearSearch(): Promise<void>;
}

export function createSearchApi(state: WorkerState): SearchApi {
	const { session, search } = state;
	return {
		searchMessages: (query, limit) =>
			state.run(() => {
				session.requireUnlocked('agent');
				if (typeof query !== 'string') fail('INVALID_INPUT', 'query must be a string');
				return search.search(query, limit);
			}),
		searchStatus: () =>
			state.run(async () => {
				session.requireUnlocked('agent');
				return { coverage: await search.coverage(), documents: await search.size(), conversations: await search.conversations() };
			}),
		markSearchCovered: (conversationId, messageId) =>
			state.run(() => {
				session.requireUnlocked('agent');
				return search.covered(requireId(conversationId, 'conversationId'), requireId(messageId, 'messageId'));
			}),
		forgetSearch: (conversationIds) =>
			state.run(() => {
				session.requireUnlocked('agent');
				return search.forget(conversationIds.map((id) => requireId(id, 'conversationId')));
			}),
		clearSearch: () => state.run(() => search.clear())
	};
}
