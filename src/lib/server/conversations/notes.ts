/**
 * A private note and the accounts it mentions, stored together (docs/inbox-api.md §4 "Notes",
 * "Mentions"): in one transaction, so a refused mention stores neither, and a note sent again (a retry)
 * is answered with the stored one and its first mentions.
 */
import type { PrivateEnvelope } from '../../crypto/private-record';
import type { ConversationNote } from '../../inbox-api/records';
import type { Account } from '../db/accounts';
import { appendLiveEvent } from '../db/live-events';
import { storeNote } from '../db/notes';
import type { StoreDeps } from '../deps';
import { checkMentions, recordMentions } from './mentions';

/** The stored note and whether it is new; undefined when its id is taken by another note. */
export async function addNote(
	deps: StoreDeps,
	author: Account,
	input: { conversationId: string; envelope: PrivateEnvelope; mentions: readonly string[] }
): Promise<{ note: ConversationNote; created: boolean } | undefined> {
	const { conversationId, envelope, mentions } = input;
	const now = new Date(deps.now());
	return deps.db.transaction(async (tx) => {
		await checkMentions(tx, author, conversationId, mentions);
		const result = await storeNote(tx, { conversationId, author, envelope }, now);
		if (result?.created) {
			await appendLiveEvent(tx, 'note.created', conversationId, { conversationId, note: result.note }, now);
			await recordMentions(tx, result.note, mentions, now);
		}
		return result;
	});
}
