/**
 * The drafts part of the crypto worker's API (docs/crypto-worker.md "Drafts"): what the agent is writing
 * in each conversation, sealed under the device key in the account's key store. Drafts are written and
 * read only while the agent key is unlocked, so nothing lands after a lock.
 */
import type { Draft } from '../../keystore/drafts';
import type { WorkerState } from './state';

export interface DraftsApi {
	/** Keeps the draft of a conversation, sealed under the device key; empty text removes it. */
	saveDraft(conversationId: string, draft: Draft): Promise<void>;
	/** The draft of a conversation, or null; `LOCKED` while the agent key is locked. */
	loadDraft(conversationId: string): Promise<Draft | null>;
	removeDraft(conversationId: string): Promise<void>;
	/** The conversations with a draft, for the list's marker (no text). */
	draftConversations(): Promise<string[]>;
	/** Removes every draft of this account (sign-out). */
	clearDrafts(): Promise<void>;
}

export function createDraftsApi(state: WorkerState): DraftsApi {
	/**
	 * Writes and removals of drafts one after the other, in the order asked: a sign-out's clear waits for a
	 * write already under way (its sealing and its put), which would otherwise land after the clear and
	 * outlive the sign-out; a write whose turn comes after a lock writes nothing.
	 */
	let writes: Promise<unknown> = Promise.resolve();
	const inTurn = <T>(write: () => Promise<T>): Promise<T> => {
		const turn = writes.then(write);
		writes = turn.catch(() => undefined);
		return turn;
	};
	return {
		saveDraft: (conversationId, draft) =>
			state.run(() => {
				state.session.requireUnlocked('agent');
				return inTurn(async () => {
					state.session.requireUnlocked('agent');
					return state.store.drafts.save(conversationId, draft);
				});
			}),
		loadDraft: (conversationId) =>
			state.run(() => {
				state.session.requireUnlocked('agent');
				return state.store.drafts.load(conversationId);
			}),
		removeDraft: (conversationId) => state.run(() => inTurn(() => state.store.drafts.remove(conversationId))),
		draftConversations: () => state.run(() => state.store.drafts.conversations()),
		clearDrafts: () => state.run(() => inTurn(() => state.store.drafts.clear()))
	};
}
