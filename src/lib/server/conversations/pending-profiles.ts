/**
 * Profiles written with an invitation (docs/private-records.md "Profiles written with an invitation"):
 * kept sealed to the company key until the conversation starts, then opened, checked and stored as the
 * conversation's `in1` profile, under the conversation key, in the name of the agent who wrote it. Every
 * process looks for them when a conversation starts and every 15 s, each row claimed by one.
 */
import { ContractError } from '../../errors';
import { encryptPrivateRecord, newRecordId } from '../../crypto/private-record';
import { openPendingProfile } from '../../crypto/pending-profile';
import { openConversationKey, type Wrap } from '../../crypto/wrap';
import type { Account } from '../db/accounts';
import type { Database, Queryable } from '../db/database';
import { appendLiveEvent } from '../db/live-events';
import { saveProfile } from '../db/profiles';
import type { CompanyKeys } from '../keys/files';
import { errorText, type Logger } from '../log';

/** Keeps a sealed profile for a conversation nobody joined yet; only who invited (or an admin) may. */
export async function keepPendingProfile(
	db: Queryable,
	account: Account,
	conversationId: string,
	sealed: unknown,
	now: Date
): Promise<void> {
	if (typeof sealed !== 'string' || !/^[A-Za-z0-9_-]{64,90000}$/.test(sealed))
		throw new ContractError('INVALID_REQUEST', 'sealed must be b64u');
	const [conversation] = await db.query<{ status: string; invited_by_me: boolean }>(
		`select status, exists (select 1 from invite_secrets i where i.conversation_id = c.conversation_id and i.created_by = $2) as invited_by_me
		 from conversations c where conversation_id = $1`,
		[conversationId, account.accountId]
	);
	if (!conversation) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
	if (conversation.status !== 'pending')
		throw new ContractError('STATE_CONFLICT', 'the customer joined already: edit the profile in the conversation');
	if (!conversation.invited_by_me && account.role !== 'admin')
		throw new ContractError('FORBIDDEN', 'only who invited the customer (or an admin) may');
	await db.query(
		`insert into pending_profiles (conversation_id, author_id, author_name, sealed, created_at) values ($1, $2, $3, $4, $5)
		 on conflict (conversation_id) do update set author_id = excluded.author_id, author_name = excluded.author_name, sealed = excluded.sealed,
		 created_at = excluded.created_at`,
		[conversationId, account.accountId, account.displayName, sealed, now]
	);
}

/** Stores the sealed profiles of conversations that started as their `in1` profiles; returns how many. */
export async function convertPendingProfiles(
	options: { db: Database; companyKeys: () => Promise<CompanyKeys>; log: Logger },
	now: Date
): Promise<number> {
	return options.db.transaction(async (tx) => {
		const rows = await tx.query<{
			conversation_id: string;
			author_id: string;
			author_name: string;
			sealed: string;
			wrap_for_company: Wrap;
		}>(
			`select p.conversation_id, p.author_id, p.author_name, p.sealed, c.wrap_for_company
			 from pending_profiles p join conversations c on c.conversation_id = p.conversation_id
			 where c.wrap_for_company is not null order by p.created_at limit 50 for update of p skip locked`
		);
		if (rows.length === 0) return 0;
		const keys = await options.companyKeys();
		const keyPairs = [keys.current, ...keys.previous];
		for (const row of rows) {
			const conversationId = row.conversation_id;
			try {
				const text = openPendingProfile(row.sealed, { conversationId, authorId: row.author_id }, keyPairs);
				const conversationKey = openConversationKey(row.wrap_for_company, conversationId, keyPairs);
				const envelope = encryptPrivateRecord({
					kind: 'profile',
					conversationId,
					authorId: row.author_id,
					recordId: newRecordId('profile'),
					keyVersion: row.wrap_for_company.keyVersion,
					text,
					conversationKey
				});
				conversationKey.fill(0);
				const author = { accountId: row.author_id, displayName: row.author_name } as Account;
				// a profile an agent saved meanwhile wins: version 0 is expected
				if (await saveProfile(tx, { conversationId, author, envelope, expectedVersion: 0 }, now)) {
					await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
				}
			} catch (error) {
				options.log.warn('a profile written with the invitation could not be stored', {
					conversation: conversationId,
					reason: errorText(error)
				});
			}
			await tx.query('delete from pending_profiles where conversation_id = $1', [conversationId]);
		}
		return rows.length;
	});
}
