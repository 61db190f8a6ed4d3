/**
 * Who owns a conversation (docs/inbox-api.md §4 "Assignment"): any account with access to the
 * conversation assigns it to itself, to another account with access, or to nobody; with the team's
 * `assignOnFirstReply`, the first reply to an unassigned conversation assigns it to its sender. Each
 * change is a line of the conversation's activity and a live event for every open inbox.
 */
import { ContractError } from '../../errors';
import { getAccount, type Account } from '../db/accounts';
import { recordActivityLine } from '../db/conversation-activity';
import type { Queryable } from '../db/database';
import { appendLiveEvent } from '../db/live-events';
import { readSettings } from '../db/settings';
import type { StoreDeps } from '../deps';
import { hasConversationAccess } from './access';

/** Which automatic assignment chose the assignee: the first reply's sender, or the round-robin's turn. */
export type AutomaticRule = 'first_reply' | 'round_robin';

/** Sets the assignee inside `tx` (the conversation is locked); nothing happens when it is already that one. */
export async function setAssignee(
	tx: Queryable,
	conversationId: string,
	change: {
		actor: Account | null;
		assignee: Account | null;
		automatic?: AutomaticRule;
		/** The team among whose members the rule chose. */
		teamName?: string;
		onlyIfUnassigned?: boolean;
	},
	now: Date
): Promise<void> {
	const [row] = await tx.query<{ assignee_id: string | null; assignee_name: string | null }>(
		`select c.assignee_id, a.display_name as assignee_name from conversations c left join accounts a on a.account_id = c.assignee_id
		 where c.conversation_id = $1 for update of c`,
		[conversationId]
	);
	if (!row) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
	const assigneeId = change.assignee?.accountId ?? null;
	if (row.assignee_id === assigneeId || (change.onlyIfUnassigned && row.assignee_id !== null)) return;
	await tx.query('update conversations set assignee_id = $2, updated_at = $3 where conversation_id = $1', [
		conversationId,
		assigneeId,
		now
	]);
	await recordActivityLine(
		tx,
		change.assignee
			? {
					conversationId,
					kind: 'assigned',
					actor: change.actor,
					details: {
						assigneeName: change.assignee.displayName,
						...(change.automatic ? { automatic: true, rule: change.automatic } : {}),
						...(change.teamName ? { teamName: change.teamName } : {})
					}
				}
			: { conversationId, kind: 'unassigned', actor: change.actor, details: row.assignee_name ? { assigneeName: row.assignee_name } : {} },
		now
	);
	await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
}

/**
 * Assigns the conversation to `assigneeId` (null: nobody). The caller needs access to the conversation
 * (`403 NO_CONVERSATION_ACCESS`); so does the assignee, who must be an enabled account that can read it
 * (`409 STATE_CONFLICT` otherwise).
 */
export async function assignConversation(
	deps: StoreDeps,
	actor: Account,
	conversationId: string,
	assigneeId: string | null
): Promise<void> {
	let assignee: Account | null = null;
	if (assigneeId !== null) {
		assignee = (await getAccount(deps.db, assigneeId)) ?? null;
		if (!assignee || !(await hasConversationAccess(deps.db, assignee, conversationId))) {
			throw new ContractError(
				'STATE_CONFLICT',
				'that account cannot read this conversation (disabled, not in the latest roster, or its key holds no wrap of it)'
			);
		}
	}
	await deps.db.transaction((tx) => setAssignee(tx, conversationId, { actor, assignee }, new Date(deps.now())));
}

/** With the team's `assignOnFirstReply`, a reply to an unassigned conversation assigns it to its sender. */
export async function assignOnFirstReply(tx: Queryable, sender: Account, conversationId: string, now: Date): Promise<void> {
	if (!(await readSettings(tx)).assignOnFirstReply) return;
	await setAssignee(tx, conversationId, { actor: sender, assignee: sender, automatic: 'first_reply', onlyIfUnassigned: true }, now);
}
