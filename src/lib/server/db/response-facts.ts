/**
 * Each conversation's first response, kept as the facts are stored (docs/reports.md "Cost" › "First
 * responses, kept as they are stored"; the figure is `firstResponse` of "What each figure means"): its
 * first customer message ever and the first reply an agent sent at or after it, in
 * `conversation_response_facts` (migration 30), so a report reads first responses by time instead of
 * probing every answered conversation.
 *
 * Whatever the order of arrival: a customer message earlier than the conversation's first one finds the
 * first reply again from the indexes; a reply before any customer message is no response; a reply
 * earlier than the recorded one replaces it. Every writer of a conversation takes its turn on the
 * conversation's row, and a customer message reads the replies only once it holds that row, so a reply
 * committed meanwhile is either read or applied after it, never lost.
 */
import type { Queryable } from './database';

/**
 * Takes the rows of the conversations `$1`, in the order of their ids (two writers of the same
 * conversations never wait on each other crosswise), creating the missing ones. `where false` updates
 * nothing; the rows are locked all the same.
 */
const TAKE_ROWS = `
insert into conversation_response_facts (conversation_id)
select distinct conversation_id from unnest($1::text[]) as c (conversation_id) order by conversation_id
on conflict (conversation_id) do update set conversation_id = excluded.conversation_id where false`;

/** The first customer message of each conversation `$1` and the first reply at or after it, where they changed. */
const REFRESH = `
update conversation_response_facts f
set first_in_at = m.first_in_at, first_reply_at = r.created_at, first_reply_account_id = r.account_id
from (
	select c.conversation_id, (
		select min(u.created_at) from conversation_messages u where u.conversation_id = c.conversation_id and u.sender_type = 'user'
	) as first_in_at
	from (select distinct conversation_id from unnest($1::text[]) as c (conversation_id)) c
) m
left join lateral (
	select a.created_at, a.account_id from message_authors a
	where a.conversation_id = m.conversation_id and a.created_at >= m.first_in_at order by a.created_at limit 1
) r on true
where f.conversation_id = m.conversation_id and f.first_in_at is distinct from m.first_in_at`;

/**
 * Stores customer messages of `conversationIds` by `store` and keeps those conversations' first
 * responses, in the transaction `tx`: their rows are taken before `store` (before whatever else it
 * locks), the replies read after it.
 */
export async function keepingFirstResponses<T>(tx: Queryable, conversationIds: readonly string[], store: () => Promise<T>): Promise<T> {
	if (conversationIds.length === 0) return store();
	await tx.query(TAKE_ROWS, [conversationIds]);
	const stored = await store();
	await tx.query(REFRESH, [conversationIds]);
	return stored;
}

/**
 * A `with` clause for a statement that records replies in a clause `claimed (conversation_id,
 * account_id, created_at)`, one row: the reply becomes its conversation's first response when it is
 * at or after the first customer message and before the reply recorded so far. It waits for a customer
 * message being stored in the conversation, then compares with what that stored.
 */
export const ANSWER_FIRST_RESPONSE = `
answered as (
	insert into conversation_response_facts as f (conversation_id)
	select conversation_id from claimed
	on conflict (conversation_id) do update
	set first_reply_at = (select created_at from claimed), first_reply_account_id = (select account_id from claimed)
	where f.first_in_at <= (select created_at from claimed) and (f.first_reply_at is null or f.first_reply_at > (select created_at from claimed))
)`;
