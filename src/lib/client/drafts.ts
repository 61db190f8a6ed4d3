/**
 * The composer's draft of the conversation on screen (docs/crypto-worker.md "Drafts"): read
 * when the thread opens, written a moment after the agent stops typing and at once when the thread
 * closes, in the order typed; an emptied box (a sent reply) removes it. The worker seals it.
 */
import type { Draft } from '../keystore/drafts';

export type { Draft, DraftMode } from '../keystore/drafts';

export interface DraftStorage {
	saveDraft(conversationId: string, draft: Draft): Promise<void>;
	loadDraft(conversationId: string): Promise<Draft | null>;
}

/** How long typing pauses before the draft is written. */
export const DRAFT_SAVE_DELAY_MS = 400;

export class DraftKeeper {
	private timer: ReturnType<typeof setTimeout> | undefined;
	private pending: Draft | null = null;
	private saved: Promise<void> = Promise.resolve();

	constructor(
		private readonly conversationId: string,
		private readonly storage: DraftStorage,
		private readonly delayMs = DRAFT_SAVE_DELAY_MS
	) {}

	/** The stored draft; none when it cannot be read (locked, storage refused). */
	load(): Promise<Draft | null> {
		return this.storage.loadDraft(this.conversationId).catch(() => null);
	}

	/** The box changed: write it once typing pauses. */
	changed(draft: Draft): void {
		this.pending = { text: draft.text, mode: draft.mode };
		clearTimeout(this.timer);
		this.timer = setTimeout(() => void this.flush(), this.delayMs);
	}

	/** Writes what is pending now (the thread closes); resolves when every earlier write is done. */
	flush(): Promise<void> {
		clearTimeout(this.timer);
		const draft = this.pending;
		this.pending = null;
		if (draft) this.saved = this.saved.then(() => this.storage.saveDraft(this.conversationId, draft)).catch(() => undefined);
		return this.saved;
	}
}
