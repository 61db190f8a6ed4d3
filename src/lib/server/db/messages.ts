/**
 * Message envelopes stored as received (contract 2.5; docs/inbox-api.md §4), each account's read pointer,
 * and the agent wraps of each conversation (contract 6.7, contract-gaps §7). Ciphertext only.
 */
import type { Wrap } from '../../wire/v1';
import type { StoredMessage } from '../../inbox-api/records';
import { isoSeconds } from '../../crypto/rules';
import type { Queryable } from './database';
import { keepingFirstResponses } from './response-facts';

export type { StoredMessage };

/**
 * The nine columns of `conversation_messages` for an `unnest($1::text[], $2::text[], $3::int[], $4::text[],
 * $5::text[], $6::jsonb[], $7::jsonb[], $8::timestamptz[], $9::text[])`, in the table's order.
 */
export function messageColumns(entries: readonly { message: StoredMessage; eventId: string | null }[]): unknown[][] {
	const column = <T>(pick: (entry: { message: StoredMessage; eventId: string | null }) => T) => entries.map(pick);
	return [
		column((entry) => entry.message.messageId),
		column((entry) => entry.message.conversationId),
		column((entry) => entry.message.seq),
		column((entry) => entry.message.senderType),
		column((entry) => entry.message.contentType),
		column((entry) => JSON.stringify(entry.message.encryption)),
		column((entry) => (entry.message.attachment === null ? null : JSON.stringify(entry.message.attachment))),
		column((entry) => entry.message.createdAt),
		column((entry) => entry.eventId)
	];
}

/** The conversations of the customer's messages among `messages`, whose first responses they may change. */
export function customerConversations(messages: readonly { message: StoredMessage }[]): string[] {
	return messages.filter((entry) => entry.message.senderType === 'user').map((entry) => entry.message.conversationId);
}

/**
 * Stores messages once each (by `messageId`), in one statement, and keeps the first responses of the
 * conversations the customer wrote in (db/response-facts.ts); returns the ids that were new.
 */
export async function storeMessages(
	tx: Queryable,
	entries: readonly { message: StoredMessage; eventId: string | null }[]
): Promise<Set<string>> {
	if (entries.length === 0) return new Set();
	const rows = await keepingFirstResponses(tx, customerConversations(entries), () =>
		tx.query<{ message_id: string }>(
			`insert into conversation_messages (message_id, conversation_id, seq, sender_type, content_type, encryption, attachment, created_at, event_id)
			 select * from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[], $8::timestamptz[], $9::text[])
			 on conflict (message_id) do nothing returning message_id`,
			messageColumns(entries)
		)
	);
	return new Set(rows.map((row) => row.message_id));
}

/** Stores a message once (by `messageId`); returns whether it was new. */
export async function storeMessage(tx: Queryable, message: StoredMessage, eventId: string | null): Promise<boolean> {
	return (await storeMessages(tx, [{ message, eventId }])).has(message.messageId);
}

interface MessageRow {
	message_id: string;
	conversation_id: string;
	seq: number | null;
	sender_type: 'user' | 'company';
	content_type: string;
	encryption: StoredMessage['encryption'];
	attachment: StoredMessage['attachment'];
	created_at: Date;
}

/**
 * The stored messages after `afterSeq`, in seq order. A message the service delivered without a `seq`
 * has no place in that order: it comes first, on the first page (`afterSeq` 0), so it is never hidden.
 */
export async function listStoredMessages(
	db: Queryable,
	conversationId: string,
	afterSeq: number,
	limit: number
): Promise<{ messages: StoredMessage[]; hasMore: boolean }> {
	const rows = await db.query<MessageRow>(
		`select message_id, conversation_id, seq, sender_type, content_type, encryption, attachment, created_at
		 from conversation_messages where conversation_id = $1 and (seq > $2 or (seq is null and $2 = 0))
		 order by seq nulls first, created_at, message_id limit $3`,
		[conversationId, afterSeq, limit + 1]
	);
	const messages = rows.slice(0, limit).map((row) => ({
		messageId: row.message_id,
		conversationId: row.conversation_id,
		seq: row.seq,
		senderType: row.sender_type,
		contentType: row.content_type,
		encryption: row.encryption,
		attachment: row.attachment,
		createdAt: isoSeconds(row.created_at)
	}));
	return { messages, hasMore: rows.length > limit };
}

/**
 * Takes the count rows (migration 33) of the conversations `conversationIds`, in the order of their ids,
 * creating the missing ones, before a statement that stores their customer's messages and then takes
 * the live events' lock: a read mark takes its conversation's row first and then that lock, so every
 * writer takes them in the same order and none waits on another crosswise.
 */
export async function takeCustomerCounts(tx: Queryable, conversationIds: readonly string[]): Promise<void> {
	if (conversationIds.length === 0) return;
	await tx.query(
		`insert into conversation_customer_messages as kept (conversation_id, stored)
		 select distinct conversation_id, 0 from unnest($1::text[]) as c (conversation_id) order by conversation_id
		 on conflict (conversation_id) do update set stored = kept.stored`,
		[conversationIds]
	);
}

/**
 * Moves the account's read pointer forward to the stored message; false when that message is unknown here.
 * The mark keeps how many of the customer's messages it covers (migration 33): counted as those stored less
 * those after the mark, under the lock of the conversation's count, so a message stored meanwhile is
 * counted by this statement or moves the mark's count itself, never neither.
 */
export async function markReadUpTo(
	tx: Queryable,
	accountId: string,
	conversationId: string,
	messageId: string,
	now: Date
): Promise<boolean> {
	await tx.query(
		`insert into conversation_customer_messages as kept (conversation_id, stored) values ($1, 0)
		 on conflict (conversation_id) do update set stored = kept.stored`,
		[conversationId]
	);
	const rows = await tx.query(
		`insert into agent_reads (account_id, conversation_id, read_up_to_seq, customer_messages_read, updated_at)
		 select $1, $2, m.seq, kept.stored - (select count(*) from conversation_messages after
		   where after.conversation_id = $2 and after.sender_type = 'user' and after.seq > m.seq), $4
		 from conversation_messages m, conversation_customer_messages kept
		 where m.message_id = $3 and m.conversation_id = $2 and m.seq is not null and kept.conversation_id = $2
		 on conflict (account_id, conversation_id)
		 do update set read_up_to_seq = greatest(agent_reads.read_up_to_seq, excluded.read_up_to_seq),
		   customer_messages_read = case when excluded.read_up_to_seq > agent_reads.read_up_to_seq
		     then excluded.customer_messages_read else agent_reads.customer_messages_read end,
		   updated_at = excluded.updated_at
		 returning read_up_to_seq`,
		[accountId, conversationId, messageId, now]
	);
	return rows.length > 0;
}

/** Stores wraps sealed for agents; a newer wrap for the same agent replaces the older one. */
export async function storeAgentWraps(
	tx: Queryable,
	conversationId: string,
	wraps: readonly { agentKeyId: string; rosterVersion: number; wrap: Wrap }[],
	now: Date
): Promise<void> {
	if (wraps.length === 0) return;
	await tx.query(
		`insert into agent_wraps (conversation_id, agent_key_id, roster_version, wrap, received_at)
		 select $1, agent_key_id, roster_version, wrap, $5
		 from unnest($2::text[], $3::int[], $4::jsonb[]) as w (agent_key_id, roster_version, wrap)
		 on conflict (conversation_id, agent_key_id)
		 do update set roster_version = excluded.roster_version, wrap = excluded.wrap, received_at = excluded.received_at
		 where agent_wraps.roster_version <= excluded.roster_version`,
		[
			conversationId,
			wraps.map((wrap) => wrap.agentKeyId),
			wraps.map((wrap) => wrap.rosterVersion),
			wraps.map((wrap) => JSON.stringify({ keyVersion: wrap.wrap.keyVersion, sealed: wrap.wrap.sealed })),
			now
		]
	);
}

/** Agent wraps of many conversations in one statement (grant jobs), with the same newer-roster-wins rule. */
export async function storeAgentWrapsOfConversations(
	tx: Queryable,
	wraps: readonly { conversationId: string; agentKeyId: string; rosterVersion: number; wrap: Wrap }[],
	now: Date
): Promise<void> {
	if (wraps.length === 0) return;
	await tx.query(
		`insert into agent_wraps (conversation_id, agent_key_id, roster_version, wrap, received_at)
		 select conversation_id, agent_key_id, roster_version, wrap, $5
		 from unnest($1::text[], $2::text[], $3::int[], $4::jsonb[]) as w (conversation_id, agent_key_id, roster_version, wrap)
		 on conflict (conversation_id, agent_key_id)
		 do update set roster_version = excluded.roster_version, wrap = excluded.wrap, received_at = excluded.received_at
		 where agent_wraps.roster_version <= excluded.roster_version`,
		[
			wraps.map((wrap) => wrap.conversationId),
			wraps.map((wrap) => wrap.agentKeyId),
			wraps.map((wrap) => wrap.rosterVersion),
			wraps.map((wrap) => JSON.stringify({ keyVersion: wrap.wrap.keyVersion, sealed: wrap.wrap.sealed })),
			now
		]
	);
}
