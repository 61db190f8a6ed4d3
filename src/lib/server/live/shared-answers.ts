/**
 * Work the process's streams share (docs/inbox-api.md §7 "Fan-out"): what one event shows to one
 * account — its view of a conversation, whether it may read it — is asked of the database once, whatever
 * the number of that account's open streams (tabs, windows, agents signed in twice). Answers are keyed
 * by the event and by everything of the account that decides what it sees, and the oldest are dropped
 * past a bound, so memory stays flat.
 */
import type { Account } from '../db/accounts';
import { liveAnswers } from '../metrics';

/** Enough for every stream to catch up on a busy second, for a team of a hundred accounts. */
const KEPT_ANSWERS = 20_000;

/** What of an account decides what an event shows it: a change of any part asks again. */
export function viewerKey(account: Account): string {
	return [
		account.accountId,
		account.role,
		account.agentKeyId ?? '',
		account.agentPublicKey ?? '',
		account.disabledAt ? 'disabled' : ''
	].join('|');
}

export class SharedAnswers {
	readonly #answers = new Map<string, Promise<unknown>>();

	/** The answer for `key`, worked out by `work` by the first stream to ask; a failure is not kept. */
	once<T>(key: string, work: () => Promise<T>): Promise<T> {
		const known = this.#answers.get(key);
		if (known) {
			liveAnswers.inc({ outcome: 'shared' });
			return known as Promise<T>;
		}
		liveAnswers.inc({ outcome: 'worked' });
		const answer = work();
		this.#answers.set(key, answer);
		answer.catch(() => this.#answers.delete(key));
		if (this.#answers.size > KEPT_ANSWERS) this.#answers.delete(this.#answers.keys().next().value as string);
		return answer;
	}
}

/** A run of events as one account sees it: its frames, encoded, and the last event it covers. */
export interface RenderedBatch {
	/** Null when the account is shown none of them. */
	bytes: Uint8Array | null;
	/** The last event worked out (null: not even the first); after a failure, those before it. */
	lastId: number | null;
	/** Why the batch stopped before its end, if it did. */
	failure?: unknown;
}

/** Enough for every account's streams at the same place to share their batches, with room for the laggards. */
const KEPT_BATCHES = 2_000;
const KEPT_BATCH_BYTES = 16 * 1024 * 1024;

/**
 * A run of events rendered once per account and place (docs/inbox-api.md §7 "Fan-out"): the streams of
 * an account that are at the same event (every tab of a team woken by the same commit) send the same
 * bytes, so the per-event work is per account, not per stream. The batches kept are bounded in number
 * and bytes, oldest first out; one that failed part-way is shared with those already waiting for it
 * only, the next to ask works it out again.
 */
export class SharedBatches {
	readonly #batches = new Map<string, Promise<RenderedBatch>>();
	readonly #sizes = new Map<string, number>();
	#bytes = 0;

	once(key: string, work: () => Promise<RenderedBatch>): Promise<RenderedBatch> {
		const known = this.#batches.get(key);
		if (known) return known;
		const batch = work();
		this.#batches.set(key, batch);
		batch.then(
			(rendered) => {
				if (this.#batches.get(key) !== batch) return;
				if (rendered.failure !== undefined) return this.#forget(key);
				const size = rendered.bytes?.length ?? 0;
				this.#sizes.set(key, size);
				this.#bytes += size;
				this.#trim();
			},
			() => this.#forget(key)
		);
		return batch;
	}

	#forget(key: string): void {
		this.#batches.delete(key);
		this.#bytes -= this.#sizes.get(key) ?? 0;
		this.#sizes.delete(key);
	}

	/** Drops the oldest finished batches past the bounds (one being worked out stays). */
	#trim(): void {
		for (const key of this.#sizes.keys()) {
			if (this.#batches.size <= KEPT_BATCHES && this.#bytes <= KEPT_BATCH_BYTES) return;
			this.#forget(key);
		}
	}

	/** Batches kept and their bytes (for the specs). */
	get kept(): { batches: number; bytes: number } {
		return { batches: this.#batches.size, bytes: this.#bytes };
	}
}
