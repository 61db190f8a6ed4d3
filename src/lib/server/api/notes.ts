/**
 * Private notes (docs/inbox-api.md §4 "Notes"): any account with access to the conversation reads
 * and adds them. The server checks the envelope's shape only; it cannot read them.
 */
import { ContractError } from '../../errors';
import { privateEnvelopeShapeProblem, type PrivateEnvelope } from '../../crypto/private-record';
import { requireConversationAccess } from '../conversations/access';
import { appendLiveEvent } from '../db/live-events';
import { listNotes, storeNote } from '../db/notes';
import { json, readJsonObject } from '../http/responses';
import { idParam, requireSession, route } from './event';

/** A conversation shows at most this many of its newest notes. */
const NOTES_SHOWN = 1000;

export const getNotes = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	await requireConversationAccess(inbox, account, conversationId);
	return json({ data: await listNotes(inbox.db, conversationId, NOTES_SHOWN) });
});

export const postNote = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const { envelope } = await readJsonObject(event.request, 96 * 1024);
	const problem = privateEnvelopeShapeProblem(envelope);
	if (problem) throw new ContractError('INVALID_REQUEST', `envelope: ${problem}`);
	await requireConversationAccess(inbox, account, conversationId);
	const now = new Date(inbox.now());
	const stored = await inbox.db.transaction(async (tx) => {
		const result = await storeNote(tx, { conversationId, author: account, envelope: envelope as PrivateEnvelope }, now);
		if (result?.created) await appendLiveEvent(tx, 'note.created', conversationId, { conversationId, note: result.note }, now);
		return result;
	});
	if (!stored) throw new ContractError('ALREADY_EXISTS', 'another note has this recordId: encrypt the note again for a new one');
	return json(stored.note, stored.created ? 201 : 200);
});
