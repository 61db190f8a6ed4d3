/**
 * Who sent each company message (docs/inbox-api.md §4 "Message authors"): the proxy records the
 * account before a send goes to the service, keyed by the envelope's clientMessageId, so the author is
 * known even when the service's answer is lost. The first account to use a clientMessageId keeps it. The
 * inbox's own away reply (docs/service-targets.md "Away reply") is named "Away reply", without an account.
 */
import type { MessageAuthor } from '../../inbox-api/records';
import { AWAY_REPLY_AUTHOR } from '../../service-targets/away-reply';
import type { Account } from './accounts';
import type { Queryable } from './database';
import { ANSWER_FIRST_RESPONSE } from './response-facts';

/**
 * Records `account` as the author of the message with this clientMessageId, and the reply as its
 * conversation's first response when it is one (db/response-facts.ts); returns whether the account holds
 * it (false when someone else used the id first, also at the same moment).
 */
export async function claimAuthorship(
	tx: Queryable,
	message: { conversationId: string; clientMessageId: string },
	account: Account,
	now: Date
): Promise<boolean> {
	const [row] = await tx.query<{ account_id: string | null }>(
		`with claimed as (
			insert into message_authors (conversation_id, client_message_id, account_id, author_name, created_at)
			values ($1, $2, $3, $4, $5) on conflict (conversation_id, client_message_id) do nothing returning conversation_id, account_id, created_at
		),
		${ANSWER_FIRST_RESPONSE}
		select account_id from claimed
		union all
		select account_id from message_authors where conversation_id = $1 and client_message_id = $2 and not exists (select 1 from claimed)`,
		[message.conversationId, message.clientMessageId, account.accountId, account.displayName, now]
	);
	return row?.account_id === account.accountId;
}

/** Who sent each of these company messages, in the order asked. */
export async function lookUpAuthors(
	db: Queryable,
	messages: readonly { conversationId: string; clientMessageId: string }[]
): Promise<MessageAuthor[]> {
	if (messages.length === 0) return [];
	const rows = await db.query<{
		ordinal: number;
		account_id: string | null;
		display_name: string | null;
		sent_from_inbox: boolean;
	}>(
		`select q.ordinal::int, a.account_id,
		        coalesce(acc.display_name, a.author_name, case when ar.client_message_id is not null then $3 end) as display_name,
		        exists (select 1 from conversation_messages m where m.conversation_id = q.conversation_id
		                  and m.sender_type = 'company' and m.encryption ->> 'clientMessageId' = q.client_message_id) as sent_from_inbox
		 from unnest($1::text[], $2::text[]) with ordinality as q (conversation_id, client_message_id, ordinal)
		 left join message_authors a on a.conversation_id = q.conversation_id and a.client_message_id = q.client_message_id
		 left join accounts acc on acc.account_id = a.account_id
		 left join away_replies ar on ar.conversation_id = q.conversation_id and ar.client_message_id = q.client_message_id
		 order by q.ordinal`,
		[messages.map((message) => message.conversationId), messages.map((message) => message.clientMessageId), AWAY_REPLY_AUTHOR]
	);
	return rows.map((row, index): MessageAuthor => {
		const { conversationId, clientMessageId } = messages[index];
		if (row.display_name !== null)
			return { conversationId, clientMessageId, origin: 'agent', accountId: row.account_id, displayName: row.display_name };
		return { conversationId, clientMessageId, origin: row.sent_from_inbox ? 'inbox' : 'outside' };
	});
}
