/**
 * A conversation's log as sentences for the thread: the team's activity (docs/inbox-api.md §4 `activity`)
 * and the key events (`keyEvents`; docs/threat-model.md) — who re-invited the customer, each change of
 * the customer's key with its new fingerprint (contract 2.2), who approved giving it the history and
 * since when they had the standing to (an admin: who made them one).
 */
import type { ConversationActivity, ConversationKeyEvent } from '../inbox-api/records';
import { formatDateTime } from './format';

export function keyEventSentence(event: ConversationKeyEvent): string {
	const who = event.actorName ?? 'Someone outside the inbox';
	if (event.kind === 'reinvited') return `${who} re-invited this customer.`;
	if (event.kind === 'rewrap_approved') {
		const { approverRole, roleSince, roleGrantedBy } = event.details;
		const standing =
			approverRole === 'admin' && roleSince
				? ` (an admin since ${formatDateTime(roleSince)}, made one by ${roleGrantedBy ?? 'someone unknown'})`
				: approverRole === 'agent' && roleSince
					? ` (in the roster since ${formatDateTime(roleSince)})`
					: '';
		return `${who}${standing} approved giving the new device the conversation’s history.`;
	}
	const trust =
		event.details.trust === 'verified' ? '' : event.details.trust === 'binding_invalid' ? ' — binding invalid' : ' — not verified';
	return `The customer’s key changed (new fingerprint ${event.details.fingerprint ?? 'unknown'})${trust}.`;
}

export function activitySentence(line: ConversationActivity): string {
	const who = line.actorName ?? 'Someone';
	if (line.kind === 'resolved') return `${who} resolved this conversation.`;
	if (line.kind === 'snoozed')
		return `${who} snoozed this conversation until ${line.details.until ? formatDateTime(line.details.until) : 'later'}.`;
	if (line.kind === 'reopened') {
		if (line.details.reason === 'customer_message') return 'The customer wrote again: the conversation is open.';
		if (line.details.reason === 'snooze_ended') return 'The snooze ended: the conversation is open.';
		return `${who} reopened this conversation.`;
	}
	const team = line.details.teamName ? `the team ${line.details.teamName}` : 'a team';
	if (line.kind === 'team_assigned') return `${who} gave this conversation to ${team}.`;
	if (line.kind === 'team_unassigned') return `${who} took this conversation from ${team}.`;
	const assignee = line.details.assigneeName ?? 'someone';
	if (line.kind === 'unassigned') return `${who} unassigned ${assignee}.`;
	if (line.details.automatic && line.details.rule === 'round_robin')
		return line.details.teamName
			? `Assigned to ${assignee} by round-robin in ${line.details.teamName}: online, and their turn.`
			: `Assigned to ${assignee} by round-robin: online, and their turn.`;
	if (line.details.automatic) return `Assigned to ${assignee}, who replied first.`;
	if (line.actorName !== null && line.actorName === line.details.assigneeName) return `${who} took this conversation.`;
	return `${who} assigned this to ${assignee}.`;
}
