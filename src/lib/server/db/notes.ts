/**
 * Private notes as the inbox stores them (docs/inbox-api.md §4 "Notes"; docs/private-records.md):
 * `in1` envelopes, never plaintext, with their author and time.
 */
import type { ConversationNote } from '../../inbox-api/records';
import type { PrivateEnvelope } from '../../crypto/private-record';
import { isoSeconds } from '../../crypto/rules';
import type { Account } from './accounts';
import type { Queryable } from './database';

interface NoteRow {
	note_id: string;
	conversation_id: string;
	author_id: string;
	author_name: string;
	envelope: PrivateEnvelope;
	created_at: Date;
}

const toNote = (row: NoteRow): ConversationNote => ({
	noteId: row.note_id,
	conversationId: row.conversation_id,
	authorId: row.author_id,
	authorName: row.author_name,
	envelope: row.envelope,
	createdAt: isoSeconds(row.created_at)
});

/** Stores a note once; the stored note, or undefined when its id is taken by another note. */
export async function storeNote(
	tx: Queryable,
	note: { conversationId: string; author: Account; envelope: PrivateEnvelope },
	now: Date
): Promise<{ note: ConversationNote; created: boolean } | undefined> {
	const [inserted] = await tx.query<NoteRow>(
		`insert into conversation_notes (note_id, conversation_id, author_id, author_name, envelope, created_at) values ($1, $2, $3, $4, $5, $6)
		 on conflict (note_id) do nothing returning *`,
		[note.envelope.recordId, note.conversationId, note.author.accountId, note.author.displayName, JSON.stringify(note.envelope), now]
	);
	if (inserted) return { note: toNote(inserted), created: true };
	// the same note sent again (a retry) is answered with the stored one
	const [existing] = await tx.query<NoteRow>('select * from conversation_notes where note_id = $1', [note.envelope.recordId]);
	const fields = ['v', 'scheme', 'keyVersion', 'recordId', 'nonce', 'ciphertext'] as const;
	const same =
		existing.conversation_id === note.conversationId &&
		existing.author_id === note.author.accountId &&
		fields.every((field) => existing.envelope[field] === note.envelope[field]);
	return same ? { note: toNote(existing), created: false } : undefined;
}

/** The conversation's notes, oldest first, at most `limit` of the newest. */
export async function listNotes(db: Queryable, conversationId: string, limit: number): Promise<ConversationNote[]> {
	const rows = await db.query<NoteRow>(
		`select * from (select * from conversation_notes where conversation_id = $1 order by created_at desc, note_id desc limit $2) newest
		 order by created_at, note_id`,
		[conversationId, limit]
	);
	return rows.map(toNote);
}
