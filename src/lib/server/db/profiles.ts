/**
 * Customer profiles as the inbox stores them (docs/inbox-api.md §4 "Customer profile";
 * docs/private-records.md): one `in1` envelope per conversation, never plaintext, saved as a whole.
 */
import type { PrivateEnvelope } from '../../crypto/private-record';
import type { Account } from './accounts';
import type { Queryable } from './database';

/**
 * Saves the profile when the stored one is still `expectedVersion` (0: none yet); returns the new
 * version, or undefined when someone saved another meanwhile.
 */
export async function saveProfile(
	tx: Queryable,
	profile: { conversationId: string; author: Account; envelope: PrivateEnvelope; expectedVersion: number },
	now: Date
): Promise<number | undefined> {
	const values = [
		profile.conversationId,
		profile.author.accountId,
		profile.author.displayName,
		JSON.stringify(profile.envelope),
		profile.expectedVersion,
		now
	];
	const [row] = await tx.query<{ version: number }>(
		`insert into customer_profiles (conversation_id, author_id, author_name, envelope, version, updated_at)
		 select $1, $2, $3, $4, 1, $6 where $5::int = 0
		 on conflict (conversation_id) do nothing returning version`,
		values
	);
	if (row) return row.version;
	const [updated] = await tx.query<{ version: number }>(
		`update customer_profiles set author_id = $2, author_name = $3, envelope = $4, version = version + 1, updated_at = $6
		 where conversation_id = $1 and version = $5 returning version`,
		values
	);
	return updated?.version;
}
