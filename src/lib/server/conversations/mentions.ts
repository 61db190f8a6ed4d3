/**
 * Mentions in private notes (docs/inbox-api.md §4 "Mentions"; docs/threat-model.md, "What the server
 * learns"): the writer's browser sends the mentioned account ids beside the sealed note, and this module
 * is the one place that takes them — each must be an enabled account, other than the writer, that can
 * read the conversation (`conversations/access.ts`). The server learns who was mentioned, never what the
 * note says. Each mention is told to the mentioned account alone (`mention.created`, live/stream.ts) and
 * stays unread until that account opens the conversation after it; the read state is a row per mention,
 * so every tab and every process sees the same.
 */
import { ContractError } from '../../errors';
import type { ConversationNote, MentionSummary, TeamMember } from '../../inbox-api/records';
import { isoSeconds } from '../../crypto/rules';
import { getAccount, isAccountId, listAccounts, type Account } from '../db/accounts';
import type { Queryable } from '../db/database';
import { appendLiveEvent, appendLiveEvents } from '../db/live-events';
import type { StoreDeps } from '../deps';
import { availabilities } from './availability';
import { hasConversationAccess } from './access';

/** A note names at most this many accounts. */
export const MAX_MENTIONS = 20;

/** The `mentions` field of a new note: absent (none), or distinct account ids. */
export function parseMentionIds(value: unknown): string[] {
	if (value === undefined) return [];
	if (!Array.isArray(value) || value.length > MAX_MENTIONS || !value.every(isAccountId)) {
		throw new ContractError('INVALID_REQUEST', `mentions must be a list of at most ${MAX_MENTIONS} account ids`);
	}
	if (new Set(value).size !== value.length) throw new ContractError('INVALID_REQUEST', 'mentions must name each account once');
	return value;
}

/** Everyone who can read the conversation now, by name, with their availability: whom a note there may mention. */
export async function listReaders(db: Queryable, conversationId: string, now: Date): Promise<TeamMember[]> {
	const readers: TeamMember[] = [];
	const availability = await availabilities(db, now);
	for (const account of await listAccounts(db)) {
		if (await hasConversationAccess(db, account, conversationId)) {
			const { accountId, displayName, role } = account;
			readers.push({ accountId, displayName, role, availability: availability.get(accountId) ?? 'offline' });
		}
	}
	return readers.sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** Refuses with `409 MENTION_NOT_ALLOWED`, naming the first id, unless every one is a reader other than `writer`. */
export async function checkMentions(db: Queryable, writer: Account, conversationId: string, accountIds: readonly string[]): Promise<void> {
	for (const accountId of accountIds) {
		if (accountId === writer.accountId) throw new ContractError('MENTION_NOT_ALLOWED', 'a note cannot mention its own writer');
		const account = await getAccount(db, accountId);
		if (!account || !(await hasConversationAccess(db, account, conversationId))) {
			throw new ContractError(
				'MENTION_NOT_ALLOWED',
				`${accountId} cannot read this conversation (unknown, disabled, not in the latest roster, or its key holds no wrap of it)`
			);
		}
	}
}

/** Stores the mentions of a note just stored, in its transaction, each with its live event for the mentioned account. */
export async function recordMentions(tx: Queryable, note: ConversationNote, accountIds: readonly string[], now: Date): Promise<void> {
	if (accountIds.length === 0) return;
	await tx.query(
		`insert into note_mentions (note_id, account_id, conversation_id, created_at)
		 select $1, account_id, $2, $3 from unnest($4::text[]) as m (account_id)`,
		[note.noteId, note.conversationId, now, accountIds]
	);
	await appendLiveEvents(
		tx,
		accountIds.map((accountId) => ({
			type: 'mention.created' as const,
			conversationId: note.conversationId,
			payload: {
				conversationId: note.conversationId,
				noteId: note.noteId,
				accountId,
				authorName: note.authorName,
				createdAt: note.createdAt
			}
		})),
		now
	);
}

interface SummaryRow {
	conversation_id: string;
	unread_count: number;
	last_mentioned_at: Date;
	last_mentioned_by: string;
}

/** The conversations where a note mentioned `account`, newest mention first. */
export async function listMentions(db: Queryable, account: Account): Promise<MentionSummary[]> {
	const rows = await db.query<SummaryRow>(
		`select m.conversation_id, count(*) filter (where m.read_at is null)::int as unread_count, max(m.created_at) as last_mentioned_at,
		        (array_agg(n.author_name order by m.created_at desc, m.note_id desc))[1] as last_mentioned_by
		 from note_mentions m join conversation_notes n on n.note_id = m.note_id
		 where m.account_id = $1
		 group by m.conversation_id
		 order by max(m.created_at) desc, m.conversation_id`,
		[account.accountId]
	);
	return rows.map((row) => ({
		conversationId: row.conversation_id,
		unreadCount: row.unread_count,
		lastMentionedAt: isoSeconds(row.last_mentioned_at),
		lastMentionedBy: row.last_mentioned_by
	}));
}

/**
 * `account` opened the conversation: its mentions there until now are read, and its other tabs hear it
 * (`mention.read`). Returns how many were unread.
 */
export async function readMentions(deps: StoreDeps, account: Account, conversationId: string): Promise<number> {
	const now = new Date(deps.now());
	return deps.db.transaction(async (tx) => {
		const read = await tx.query(
			`update note_mentions set read_at = $3 where account_id = $1 and conversation_id = $2 and read_at is null and created_at <= $3
			 returning note_id`,
			[account.accountId, conversationId, now]
		);
		if (read.length > 0) await appendLiveEvent(tx, 'mention.read', conversationId, { conversationId, accountId: account.accountId }, now);
		return read.length;
	});
}
