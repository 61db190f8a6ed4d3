/**
 * The list's service targets (docs/service-targets.md "In the inbox"): each open conversation's next
 * deadline, the views "breaching within 1 h" and "overdue" with their counts, and the row's words for
 * the time left or overdue.
 */
import { dueState, serviceDue, type ServiceDue, type TargetPolicy } from '../service-targets/targets';
import type { ConversationView } from './types';

/** The list's view by deadline: every conversation, those due within the hour, or those past it. */
export type ServiceView = '' | 'breaching' | 'overdue';

/** The deadline of each open conversation that has one. */
export function dueByConversation(items: readonly ConversationView[], policy: TargetPolicy | null): Map<string, ServiceDue> {
	const dues = new Map<string, ServiceDue>();
	if (!policy) return dues;
	for (const item of items) {
		const due = conversationDue(item, policy);
		if (due) dues.set(item.conversationId, due);
	}
	return dues;
}

/** One conversation's next deadline: none once it is closed. */
export function conversationDue(item: ConversationView, policy: TargetPolicy | null): ServiceDue | null {
	return item.status === 'closed' ? null : serviceDue(policy, item);
}

/** Whether a conversation is in the view at `now`. */
export function inServiceView(view: ServiceView, due: ServiceDue | undefined, now: number): boolean {
	if (view === '') return true;
	return due !== undefined && dueState(due, now) === view;
}

export function countServiceViews(dues: ReadonlyMap<string, ServiceDue>, now: number): Record<'breaching' | 'overdue', number> {
	const counts = { breaching: 0, overdue: 0 };
	for (const due of dues.values()) tallyServiceView(counts, due, now, 1);
	return counts;
}

/** Adds (`by` 1) or takes away (`by` -1) one deadline's share of the counts at `now`, in place. */
export function tallyServiceView(counts: Record<'breaching' | 'overdue', number>, due: ServiceDue, now: number, by: 1 | -1): void {
	const state = dueState(due, now);
	if (state !== 'onTrack') counts[state] += by;
}

const MINUTE = 60_000;

/** "45 min", "3 h 5 min", "2 d 4 h": a duration to the minute, rounded up so a deadline never reads as 0 min early. */
export function formatSpan(milliseconds: number): string {
	const minutes = Math.max(1, Math.ceil(milliseconds / MINUTE));
	if (minutes < 60) return `${minutes} min`;
	const hours = Math.floor(minutes / 60);
	if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
	const days = Math.floor(hours / 24);
	return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

const WHAT: Record<ServiceDue['kind'], string> = { firstResponse: 'Reply', resolution: 'Resolve' };

/** The row's words: "Reply due in 45 min", "Resolve overdue by 2 h". */
export function dueText(due: ServiceDue, now: number): string {
	const left = Date.parse(due.dueAt) - now;
	return left < 0 ? `${WHAT[due.kind]} overdue by ${formatSpan(-left)}` : `${WHAT[due.kind]} due in ${formatSpan(left)}`;
}
