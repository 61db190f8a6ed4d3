/**
 * Who else is on a conversation (docs/inbox-api.md §4 "Presence"): the last word of each other agent,
 * viewing or typing, until it is too old to be true. Pure functions over the live events.
 */
export type PresenceState = 'viewing' | 'typing' | 'left';

/** What a live `presence` event says: who, on which conversation, doing what, when. */
export type PresenceEvent = { conversationId: string; accountId: string; displayName: string; state: PresenceState; at: string };

/** A viewer says so every 10 s; typing is told at most every 4 s. */
export const VIEWING_FOR_MS = 25_000;
export const TYPING_FOR_MS = 6_000;

export interface PresentAgent {
	accountId: string;
	displayName: string;
	typing: boolean;
}

/** This browser's time, which presence expiry is measured in. */
export const browserNow = (): string => new Date().toISOString();

/** The latest event of each agent, newer ones replacing older ones. */
export function withPresence(current: readonly PresenceEvent[], event: PresenceEvent): PresenceEvent[] {
	const previous = current.find((entry) => entry.accountId === event.accountId);
	if (previous && previous.at > event.at) return [...current];
	return [...current.filter((entry) => entry.accountId !== event.accountId), event];
}

/**
 * A message of agents who were typing arrived: they are viewing, no longer typing — as of their last word
 * (the viewing they say every few seconds keeps them there; a page that left without saying so fades).
 */
export function typingEnded(current: readonly PresenceEvent[], authors: readonly string[]): PresenceEvent[] {
	return current.map((event) => (event.state === 'typing' && authors.includes(event.accountId) ? { ...event, state: 'viewing' } : event));
}

/** The other agents on the conversation at `now`, typing ones first, by name. */
export function presentAgents(events: readonly PresenceEvent[], myAccountId: string, now: number): PresentAgent[] {
	return events
		.filter((event) => event.accountId !== myAccountId && event.state !== 'left')
		.filter((event) => now - Date.parse(event.at) < (event.state === 'typing' ? TYPING_FOR_MS : VIEWING_FOR_MS))
		.map((event) => ({ accountId: event.accountId, displayName: event.displayName, typing: event.state === 'typing' }))
		.sort((a, b) => Number(b.typing) - Number(a.typing) || a.displayName.localeCompare(b.displayName));
}

/** "Ben is viewing", "Ben is typing…", "Ben and Cleo are viewing". */
export function presenceSentence(agents: readonly PresentAgent[]): string | null {
	if (agents.length === 0) return null;
	const typing = agents.filter((agent) => agent.typing).map((agent) => agent.displayName);
	const viewing = agents.filter((agent) => !agent.typing).map((agent) => agent.displayName);
	const list = (names: string[]) => (names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);
	const parts = [];
	if (typing.length) parts.push(`${list(typing)} ${typing.length === 1 ? 'is' : 'are'} typing…`);
	if (viewing.length) parts.push(`${list(viewing)} ${viewing.length === 1 ? 'is' : 'are'} viewing`);
	return parts.join(' · ');
}
