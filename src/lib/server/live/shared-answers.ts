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
