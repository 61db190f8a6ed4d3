/**
 * A thread's private notes as the page shows them (docs/inbox-api.md §4 "Notes"): decrypted text or the
 * code of the failure in place, and the thread's timeline with notes placed among the messages by time.
 * Pure functions.
 */
import type { ConversationNote } from '../inbox-api/records';
import type { ThreadMessage } from './thread-messages';

export interface ThreadNote {
	noteId: string;
	authorId: string;
	authorName: string;
	createdAt: string;
	text?: string;
	problem?: { code: string; message: string };
}

export type TimelineEntry = { kind: 'message'; key: string; message: ThreadMessage } | { kind: 'note'; key: string; note: ThreadNote };

export function toThreadNote(
	note: ConversationNote,
	outcome: { ok: true; text: string } | { ok: false; code: string },
	explain: (code: string) => string
): ThreadNote {
	const base = { noteId: note.noteId, authorId: note.authorId, authorName: note.authorName, createdAt: note.createdAt };
	return outcome.ok ? { ...base, text: outcome.text } : { ...base, problem: { code: outcome.code, message: explain(outcome.code) } };
}

/** Notes by time (then id), one per noteId; a later copy replaces an earlier one. */
export function mergeNotes(current: readonly ThreadNote[], incoming: readonly ThreadNote[]): ThreadNote[] {
	const byId = new Map(current.map((note) => [note.noteId, note]));
	for (const note of incoming) byId.set(note.noteId, note);
	return [...byId.values()].sort((a, b) =>
		a.createdAt === b.createdAt ? (a.noteId < b.noteId ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1
	);
}

/**
 * Messages in their order, each note before the first stored message written after it; notes newer
 * than every stored message come after them, before the sends still on their way. Notes older than the
 * loaded history wait until the page that holds their time is loaded.
 */
export function timeline(messages: readonly ThreadMessage[], notes: readonly ThreadNote[], historyComplete: boolean): TimelineEntry[] {
	const stored = messages.filter((message) => message.messageId);
	const oldestShown = stored[0]?.createdAt;
	const shownNotes = notes.filter((note) => historyComplete || oldestShown === undefined || note.createdAt >= oldestShown);
	const entries: TimelineEntry[] = [];
	let next = 0;
	for (const message of messages) {
		if (message.messageId) {
			while (next < shownNotes.length && shownNotes[next].createdAt < message.createdAt) entries.push(noteEntry(shownNotes[next++]));
		} else {
			while (next < shownNotes.length) entries.push(noteEntry(shownNotes[next++]));
		}
		entries.push({ kind: 'message', key: message.key, message });
	}
	while (next < shownNotes.length) entries.push(noteEntry(shownNotes[next++]));
	return entries;
}

function noteEntry(note: ThreadNote): TimelineEntry {
	return { kind: 'note', key: `note:${note.noteId}`, note };
}
