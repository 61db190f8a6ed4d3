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
/**
 * How long the process's live memories (the hub's latest events, these facts) keep what they hold: at a
 * quiet pace a minute of events instead of filling up over hours.
 */
export const LIVE_MEMORY_MS = 60_000;

/** Events shown as the account's own view of their conversation. */
export function isViewEvent(event: LiveEvent): boolean {
	return event.type === 'conversation.started' || event.type === 'conversation.changed';
}

export class EventFacts {
	readonly #facts = new Map<number, Promise<ConversationViews>>();
	/** The events of each ask, and when (the clock's ms), oldest first. */
	readonly #asks: { ids: number[]; at: number }[] = [];

	/** `clock` tells how long ago facts were asked (monotonic ms). */
	constructor(
		private readonly db: Queryable,
		private readonly clock: () => number = () => performance.now()
	) {}

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
			this.#asks.push({ ids: missing.map((event) => event.id), at: this.clock() });
			// a failure is not kept: the next stream to ask asks again
			asked.catch(() => {
				for (const event of missing) if (this.#facts.get(event.id) === asked) this.#facts.delete(event.id);
			});
		}
		const facts = new Map(events.map((event) => [event.id, this.#facts.get(event.id) as Promise<ConversationViews>]));
		this.#trim();
		return facts;
	}

	/** Drops the facts asked over `LIVE_MEMORY_MS` ago, then the oldest past `KEPT_EVENTS`. */
	#trim(): void {
		const askedBefore = this.clock() - LIVE_MEMORY_MS;
		while (this.#asks.length > 0 && (this.#asks[0].at <= askedBefore || this.#facts.size > KEPT_EVENTS)) {
			for (const id of (this.#asks.shift() as { ids: number[] }).ids) this.#facts.delete(id);
		}
	}
}
