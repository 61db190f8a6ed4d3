/**
 * The away reply (docs/service-targets.md "Away reply"): an admin-written answer the inbox sends a
 * customer who writes while the team is away — outside business hours, or, when asked, while no agent
 * is online — once per conversation per away period. Pure: the setting's rules and which period a
 * customer's message falls in.
 */
import type { BusinessCalendar } from './business-hours';

export interface AwayReply {
	/** The reply's text, as the admin wrote it (the server holds it in clear). */
	text: string;
	/** Also while nobody of the team is online, within business hours or without them. */
	whenNobodyOnline: boolean;
}

export const MAX_AWAY_REPLY_CHARACTERS = 2_000;

/** The author the thread shows for it. */
export const AWAY_REPLY_AUTHOR = 'Away reply';

/** What is wrong with an away-reply value, or null when it is one. */
export function awayReplyProblem(value: unknown): string | null {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'must be an object { text, whenNobodyOnline }';
	const { text, whenNobodyOnline, ...rest } = value as Record<string, unknown>;
	if (Object.keys(rest).length > 0) return `has an unknown field ${Object.keys(rest)[0].slice(0, 64)}`;
	if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_AWAY_REPLY_CHARACTERS)
		return `text must be 1 to ${MAX_AWAY_REPLY_CHARACTERS} characters`;
	if (typeof whenNobodyOnline !== 'boolean') return 'whenNobodyOnline must be true or false';
	return null;
}

/**
 * The away period a customer's message at `at` falls in, or null when the team is there. Outside
 * business hours: the closed stretch (named by when it began), one reply per conversation per night or
 * weekend. Nobody online: the time since the conversation's last reply, so the next reply only after an
 * agent (or this one) answered.
 */
export function awayPeriod(
	reply: AwayReply,
	calendar: BusinessCalendar | null,
	at: number,
	nobodyOnline: boolean,
	lastReplyAt: number | null
): string | null {
	if (calendar && !calendar.isOpen(at)) return `closed since ${new Date(calendar.closedSince(at)).toISOString()}`;
	if (reply.whenNobodyOnline && nobodyOnline)
		return `nobody online since ${lastReplyAt === null ? 'the start' : new Date(lastReplyAt).toISOString()}`;
	return null;
}
