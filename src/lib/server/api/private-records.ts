/**
 * Private notes and the customer's profile (docs/inbox-api.md §4 "Notes", "Customer profile"): any
 * account with access to the conversation reads and writes them (the gate checks it, api/access-policy.ts).
 * The server checks the envelope's shape only; it cannot read them. A note's mentions come beside it.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import { privateEnvelopeShapeProblem, type PrivateEnvelope } from '../../crypto/private-record';
import { appendLiveEvent } from '../db/live-events';
import { listNotes } from '../db/notes';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { idParam, requireSession, type ApiEvent, answer, handle } from './event';
import type { Account } from '../db/accounts';
import { requireConversationView } from '../db/conversations';
import { saveProfile } from '../db/profiles';
import { keepPendingProfile } from '../conversations/pending-profiles';
import { parseMentionIds } from '../conversations/mentions';
import { addNote } from '../conversations/notes';

/** A conversation shows at most this many of its newest notes. */
const NOTES_SHOWN = 1000;

export const getNotes = handle(API.listNotes, async (event, inbox) => {
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	return answer(API.listNotes, { data: await listNotes(inbox.db, conversationId, NOTES_SHOWN) });
});

/** The request's `in1` envelope, and the rest of its body; the gate checked the caller's access. */
async function readPrivateWrite(
	event: ApiEvent<{ conversationId: string }>
): Promise<{ account: Account; conversationId: string; envelope: PrivateEnvelope; body: Record<string, unknown> }> {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	const body = await readJsonObject(event.request, BODY_LIMITS.sealedRecord);
	const problem = privateEnvelopeShapeProblem(body.envelope);
	if (problem) throw new ContractError('INVALID_REQUEST', `envelope: ${problem}`);
	return { account, conversationId, envelope: body.envelope as PrivateEnvelope, body };
}

/** A note, and the accounts it mentions (conversations/mentions.ts): both stored, or nothing when a mention is refused. */
export const postNote = handle(API.addNote, async (event, inbox) => {
	const { account, conversationId, envelope, body } = await readPrivateWrite(event);
	const stored = await addNote(inbox, account, { conversationId, envelope, mentions: parseMentionIds(body.mentions) });
	if (!stored) throw new ContractError('ALREADY_EXISTS', 'another note has this recordId: encrypt the note again for a new one');
	return answer(API.addNote, stored.note, stored.created ? 201 : 200);
});

export const putProfile = handle(API.saveProfile, async (event, inbox) => {
	const { account, conversationId, envelope, body } = await readPrivateWrite(event);
	const { version } = body;
	if (typeof version !== 'number' || !Number.isInteger(version) || version < 0) {
		throw new ContractError('INVALID_REQUEST', 'version must be the version of the profile you edited (0 when there was none)');
	}
	const now = new Date(inbox.now());
	const saved = await inbox.db.transaction(async (tx) => {
		const newVersion = await saveProfile(tx, { conversationId, author: account, envelope, expectedVersion: version }, now);
		if (newVersion !== undefined) await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
		return newVersion;
	});
	if (saved === undefined) throw new ContractError('STATE_CONFLICT', 'someone saved the profile meanwhile: reload it and edit again');
	return answer(API.saveProfile, await requireConversationView(inbox.db, account, conversationId));
});

/** A profile written with the invitation, sealed to the company key until the customer joins (docs/private-records.md). */
export const putPendingProfile = handle(API.keepPendingProfile, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	const { sealed } = await readJsonObject(event.request, BODY_LIMITS.sealedRecord);
	await keepPendingProfile(inbox.db, account, conversationId, sealed, new Date(inbox.now()));
	return answer(API.keepPendingProfile, undefined);
});
