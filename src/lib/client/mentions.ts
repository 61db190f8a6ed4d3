/**
 * Mentions in private notes as the page handles them (docs/inbox-api.md §4 "Mentions"), pure: the
 * `@name` being typed and the readers it may name, the name put in its place, which readers a note's
 * text mentions (the ids the browser sends beside the sealed note), and the list of conversations where
 * this agent was mentioned, kept current by live events.
 */
import type { Availability, MentionEvent, MentionSummary } from '../inbox-api/records';

export interface MentionCandidate {
	accountId: string;
	displayName: string;
	/** Whether they are at work now (conversations/availability.ts), when the page knows it. */
	availability?: Availability;
}

/** What may follow `@` while a name is typed: letters, digits and the marks names have, one space at a time. */
const TYPED_NAME = /^(?:[\p{L}\p{N}._'-]+ ?){0,4}$/u;
/** The most readers the list offers at once. */
export const SHOWN_CANDIDATES = 8;

/** The `@name` typed just before the caret: where its `@` is and what follows it, or null when none is being typed. */
export function mentionQuery(text: string, caret: number): { start: number; query: string } | null {
	const before = text.slice(0, caret);
	const start = before.lastIndexOf('@');
	if (start === -1 || (start > 0 && !/\s/.test(before[start - 1]))) return null;
	const query = before.slice(start + 1);
	return TYPED_NAME.test(query) ? { start, query } : null;
}

/** Who is offered first: the agents at work now, then those away, then the others. */
const AVAILABILITY_RANK = { online: 0, away: 1, offline: 2 } as const;

/**
 * The readers whose name, or a word of it, starts with `query` (any case), at most SHOWN_CANDIDATES:
 * the online first, then the away, then the offline, each by name (as given) — in a team of fifty,
 * `@` alone offers the people who can answer now.
 */
export function matchCandidates<C extends MentionCandidate>(query: string, candidates: readonly C[]): C[] {
	const wanted = query.trim().toLocaleLowerCase();
	const rank = (candidate: C) => AVAILABILITY_RANK[candidate.availability ?? 'offline'];
	return candidates
		.filter((candidate) => {
			const name = candidate.displayName.toLocaleLowerCase();
			return name.startsWith(wanted) || name.split(/\s+/).some((word) => word.startsWith(wanted));
		})
		.sort((a, b) => rank(a) - rank(b))
		.slice(0, SHOWN_CANDIDATES);
}

/** The text with the typed `@query` (from `start` to `caret`) replaced by `@Name `, and where the caret goes. */
export function insertMention(text: string, start: number, caret: number, name: string): { text: string; caret: number } {
	const inserted = `@${name} `;
	return { text: text.slice(0, start) + inserted + text.slice(caret), caret: start + inserted.length };
}

/**
 * The readers the text mentions: at each `@`, the one with the longest name written there whole (not
 * followed by a letter or digit). Each once, in the order first mentioned.
 */
export function mentionedIds(text: string, candidates: readonly MentionCandidate[]): string[] {
	const byLength = [...candidates].sort((a, b) => b.displayName.length - a.displayName.length);
	const found: string[] = [];
	for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
		if (at > 0 && !/\s/.test(text[at - 1])) continue;
		const rest = text.slice(at + 1);
		const match = byLength.find(
			(candidate) =>
				rest.toLocaleLowerCase().startsWith(candidate.displayName.toLocaleLowerCase()) &&
				!/[\p{L}\p{N}]/u.test(rest.charAt(candidate.displayName.length))
		);
		if (match && !found.includes(match.accountId)) found.push(match.accountId);
	}
	return found;
}

/** The conversations of the list. */
export function mentionedConversations(list: readonly MentionSummary[]): ReadonlySet<string> {
	return new Set(list.map((item) => item.conversationId));
}

/** The list with one more unread mention, its conversation first. */
export function withMention(list: readonly MentionSummary[], event: MentionEvent): MentionSummary[] {
	const current = list.find((item) => item.conversationId === event.conversationId);
	const updated: MentionSummary = {
		conversationId: event.conversationId,
		unreadCount: (current?.unreadCount ?? 0) + 1,
		lastMentionedAt: event.createdAt,
		lastMentionedBy: event.authorName
	};
	return [updated, ...list.filter((item) => item.conversationId !== event.conversationId)];
}

/** The list with the conversation's mentions read. */
export function withMentionsRead(list: readonly MentionSummary[], conversationId: string): MentionSummary[] {
	return list.map((item) => (item.conversationId === conversationId && item.unreadCount > 0 ? { ...item, unreadCount: 0 } : item));
}
