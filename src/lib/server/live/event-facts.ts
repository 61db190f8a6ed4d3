/**
 * What the conversation events of a run show every account with a stream on this process
 * (docs/inbox-api.md §7 "Fan-out"): each account's view of the conversation, and whether it may read
 * it, asked of the database in two statements for the whole run and every account at once
 * (db/conversations.ts `getConversationViews`), once per event, whatever the number of accounts and
 * of their streams. The facts of the latest events are kept, so memory stays flat; an account the facts
 * do not cover (it connected, or its key changed, after they were asked) is answered on its own.
 */
import type { Account } from '../db/accounts';
import { getConversationViews, type ConversationViews } from '../db/conversations';
import type { Queryable } from '../db/database';
import type { LiveEvent } from '../db/live-events';
import { liveAnswers } from '../metrics';

/** About five seconds at a thousand messages a second: every stream that keeps up finds them. */
const KEPT_EVENTS = 5_000;

/** Events shown as the account's own view of their conversation. */
export function isViewEvent(event: LiveEvent): boolean {
	return event.type === 'conversation.started' || event.type === 'conversation.changed';
}

export class EventFacts {
	readonly #facts = new Map<number, Promise<ConversationViews>>();

	constructor(private readonly db: Queryable) {}

	/**
	 * The facts of `events` (each of a conversation: a view event, or one the account must be allowed to
	 * read), by event id. Those not asked yet are asked together, for the accounts `accounts()` names then.
	 */
	of(events: readonly LiveEvent[], accounts: () => readonly Account[]): Map<number, Promise<ConversationViews>> {
		const missing = events.filter((event) => !this.#facts.has(event.id));
		if (missing.length > 0) {
			liveAnswers.inc({ outcome: 'worked' });
			const asked = getConversationViews(this.db, accounts(), {
				viewed: missing.filter(isViewEvent).map((event) => String(event.payload.conversationId)),
				read: missing.filter((event) => !isViewEvent(event)).map((event) => event.conversationId as string)
			});
			for (const event of missing) this.#facts.set(event.id, asked);
			// a failure is not kept: the next stream to ask asks again
			asked.catch(() => {
				for (const event of missing) if (this.#facts.get(event.id) === asked) this.#facts.delete(event.id);
			});
		}
		const facts = new Map(events.map((event) => [event.id, this.#facts.get(event.id) as Promise<ConversationViews>]));
		for (const id of this.#facts.keys()) {
			if (this.#facts.size <= KEPT_EVENTS) break;
			this.#facts.delete(id);
		}
		return facts;
	}
}
