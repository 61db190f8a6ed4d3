/**
 * Conversations of the same customer (docs/inbox-api.md §4 "Customer profile"): the team links a
 * conversation to another one of the customer's (a new phone, a second order) and each then lists the
 * others; unlinking takes one out. Anyone with access to both links them.
 */
import { randomBytes } from 'node:crypto';
import { ContractError } from '../../errors';
import { b64uEncode } from '../../crypto/encoding';
import type { Account } from '../db/accounts';
import type { Queryable } from '../db/database';
import { appendLiveEvent } from '../db/live-events';
import type { RosterDeps } from '../admin/roster';
import { requireConversationAccess } from './access';

async function announceGroup(tx: Queryable, group: string, also: string, now: Date): Promise<void> {
	const members = await tx.query<{ conversation_id: string }>('select conversation_id from conversations where customer_group = $1', [
		group
	]);
	for (const id of new Set([...members.map((member) => member.conversation_id), also])) {
		await appendLiveEvent(tx, 'conversation.changed', id, { conversationId: id }, now);
	}
}

/** Links `conversationId` to `otherId`'s customer, or (otherId null) takes it out of its group. */
export async function linkCustomer(deps: RosterDeps, actor: Account, conversationId: string, otherId: string | null): Promise<void> {
	if (otherId === conversationId) throw new ContractError('INVALID_REQUEST', 'a conversation cannot be linked to itself');
	if (otherId !== null) await requireConversationAccess(deps, actor, otherId);
	const now = new Date(deps.now());
	await deps.db.transaction(async (tx) => {
		const ids = otherId === null ? [conversationId] : [conversationId, otherId];
		const rows = await tx.query<{ conversation_id: string; customer_group: string | null }>(
			'select conversation_id, customer_group from conversations where conversation_id = any($1::text[]) order by conversation_id for update',
			[ids]
		);
		if (rows.length !== ids.length) throw new ContractError('NOT_FOUND', 'no such conversation');
		const own = rows.find((row) => row.conversation_id === conversationId)!.customer_group;
		if (otherId === null) {
			if (own === null) return;
			await tx.query('update conversations set customer_group = null where conversation_id = $1', [conversationId]);
			await announceGroup(tx, own, conversationId, now);
			return;
		}
		const other = rows.find((row) => row.conversation_id === otherId)!.customer_group;
		const group = other ?? own ?? `cus_${b64uEncode(randomBytes(9))}`;
		// both conversations' groups become one
		await tx.query(
			`update conversations set customer_group = $1
			 where conversation_id = any($2::text[]) or (customer_group is not null and customer_group = any($3::text[]))`,
			// Stryker disable next-line ConditionalExpression,MethodExpression: equivalent: a null in the list matches no group, since `= any` is never true for null
			[group, ids, [own, other].filter((value): value is string => value !== null)]
		);
		await announceGroup(tx, group, conversationId, now);
	});
}
