import { describe, expect, it } from 'vitest';
import type { ThreadMessage } from './thread-messages';
import { mergeNotes, timeline, toThreadNote, type ThreadNote } from './thread-notes';

const message = (key: string, createdAt: string, stored = true): ThreadMessage => ({
	key,
	messageId: stored ? key : null,
	seq: null,
	senderType: 'user',
	contentType: 'text',
	createdAt,
	state: stored ? 'received' : 'sending'
});
const note = (noteId: string, createdAt: string): ThreadNote => ({
	noteId,
	authorId: 'acc_ada',
	authorName: 'Ada',
	createdAt,
	text: noteId
});
const keys = (entries: { key: string }[]) => entries.map((entry) => entry.key);

describe('notes in the thread (docs/inbox-api.md §4 "Notes")', () => {
	it('places each note among the messages by time, before sends on their way, and holds back notes older than the loaded history', () => {
		const messages = [
			message('m1', '2026-11-25T10:00:00Z'),
			message('m2', '2026-11-25T10:05:00Z'),
			message('local', '2026-11-25T10:09:00Z', false)
		];
		const notes = [note('n0', '2026-11-25T09:00:00Z'), note('n1', '2026-11-25T10:01:00Z'), note('n2', '2026-11-25T10:07:00Z')];
		expect(keys(timeline(messages, notes, true))).toEqual(['note:n0', 'm1', 'note:n1', 'm2', 'note:n2', 'local']);
		expect(keys(timeline(messages, notes, false))).toEqual(['m1', 'note:n1', 'm2', 'note:n2', 'local']);
		expect(keys(timeline([], notes, false))).toEqual(['note:n0', 'note:n1', 'note:n2']);
	});

	it('keeps one copy of each note in time order, and shows a note that cannot be read with its code', () => {
		const merged = mergeNotes(
			[note('b', '2026-11-25T10:00:00Z'), note('c', '2026-11-25T09:00:00Z')],
			[note('a', '2026-11-25T10:00:00Z'), { ...note('b', '2026-11-25T10:00:00Z'), text: 'again' }]
		);
		expect(merged.map((item) => [item.noteId, item.text])).toEqual([
			['c', 'c'],
			['a', 'a'],
			['b', 'again']
		]);
		const stored = {
			noteId: 'n',
			conversationId: 'conv_1',
			authorId: 'acc_ada',
			authorName: 'Ada',
			createdAt: 'now',
			envelope: {} as never
		};
		expect(toThreadNote(stored, { ok: false, code: 'DECRYPT_FAILED' }, (code) => `explained ${code}`)).toMatchObject({
			problem: { code: 'DECRYPT_FAILED', message: 'explained DECRYPT_FAILED' }
		});
		expect(toThreadNote(stored, { ok: true, text: 'hi' }, String).text).toBe('hi');
	});
});
