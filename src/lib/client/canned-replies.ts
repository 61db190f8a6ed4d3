/**
 * Canned replies in the composer (docs/inbox-api.md §4 "Canned replies"): typing `/` and a shortcut
 * offers the matching replies, the agent's own before the team's; the chosen one is filled in with the
 * customer's and the agent's names. Pure functions.
 */
import type { CannedReply } from '../inbox-api/records';

export type { CannedReply };

const TRIGGER = /^\/([a-z0-9_-]*)$/;

/** The replies the composer offers for its text, or none when the text is not `/` and a shortcut's beginning. */
export function matchReplies(text: string, replies: readonly CannedReply[]): CannedReply[] {
	const match = TRIGGER.exec(text);
	if (!match) return [];
	return replies
		.filter((reply) => reply.shortcut.startsWith(match[1]))
		.sort((a, b) => (a.shortcut === b.shortcut ? (a.scope === 'personal' ? -1 : 1) : a.shortcut < b.shortcut ? -1 : 1))
		.slice(0, 8);
}

/** The reply's text with `{{customer.name}}` and `{{agent.name}}` filled in (a missing name reads as "there"/empty). */
export function expandReply(body: string, names: { customerName: string | null; agentName: string }): string {
	return body.replaceAll('{{customer.name}}', names.customerName || 'there').replaceAll('{{agent.name}}', names.agentName);
}
