/**
 * The inbox's own conversation routes (docs/inbox-api.md §4): the list and one conversation as the
 * calling account sees them, the envelopes stored as received, assignment, re-invitations, and the
 * explicit confirmation of an unverified re-invitation's rewrap.
 */
import { ContractError } from '../../errors';
import { b64uDecode, b64uEncode } from '../../crypto/encoding';
import { CONVERSATION_STATUSES, type ConversationStatus } from '../../wire/v1';
import { assignConversation } from '../conversations/assignment';
import { linkCustomer } from '../conversations/customer-links';
import { ID_RULE, readIdempotencyKey } from '../../crypto/rules';
import { isAccountId } from '../db/accounts';
import { changeTeamState, parseTeamStateChange } from '../conversations/lifecycle';
import { createInvitation, readExpiresIn } from '../conversations/invitations';
import { getConversationView, listConversationViews, type Trust } from '../db/conversations';
import { listStoredMessages } from '../db/messages';
import { appendLiveEvent, newestLiveEventId } from '../db/live-events';
import { json, readJsonObject, BODY_LIMITS } from '../http/responses';
import { idParam, requireSession, route, type ApiEvent } from './event';

const TRUSTS: readonly Trust[] = ['verified', 'unverified', 'binding_invalid'];

function queryInteger(event: ApiEvent, name: string, min: number, max: number, fallback: number): number {
	const values = event.url.searchParams.getAll(name);
	if (values.length === 0) return fallback;
	if (values.length > 1 || !/^[0-9]{1,9}$/.test(values[0]) || Number(values[0]) < min || Number(values[0]) > max) {
		throw new ContractError('INVALID_REQUEST', `${name} must be an integer from ${min} to ${max}`);
	}
	return Number(values[0]);
}

function queryChoice<T extends string>(event: ApiEvent, name: string, allowed: readonly T[]): T | undefined {
	const value = event.url.searchParams.get(name);
	if (value === null) return undefined;
	if (!allowed.includes(value as T)) throw new ContractError('INVALID_REQUEST', `${name} must be one of ${allowed.join(', ')}`);
	return value as T;
}

function readCursor(cursor: string | null): { lastActivityAt: string; conversationId: string } | undefined {
	if (cursor === null) return undefined;
	try {
		const [lastActivityAt, conversationId] = JSON.parse(new TextDecoder().decode(b64uDecode(cursor))) as [string, string];
		if (Number.isNaN(Date.parse(lastActivityAt)) || typeof conversationId !== 'string') throw new Error('shape');
		return { lastActivityAt, conversationId };
	} catch {
		throw new ContractError('INVALID_REQUEST', 'cursor is not one this inbox gave out');
	}
}

/**
 * A page of the list, and `liveEventId`: the newest live event committed before the page was read (events
 * commit in id order), so a stream resumed from it replays every change the page may not show.
 */
export const listConversations = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const liveEventId = await newestLiveEventId(inbox.db);
	const { views, hasMore } = await listConversationViews(inbox.db, account, {
		status: queryChoice<ConversationStatus>(event, 'status', CONVERSATION_STATUSES),
		trust: queryChoice(event, 'trust', TRUSTS),
		limit: queryInteger(event, 'limit', 1, 200, 50),
		after: readCursor(event.url.searchParams.get('cursor'))
	});
	const last = views.at(-1);
	const nextCursor =
		hasMore && last ? b64uEncode(new TextEncoder().encode(JSON.stringify([last.lastActivityAt, last.conversationId]))) : null;
	return json({ data: views, nextCursor, liveEventId });
});

export const getConversation = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const view = await getConversationView(inbox.db, account, conversationId);
	if (!view) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
	return json(view);
});

export const listMessages = route(async (event, inbox) => {
	requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const { messages, hasMore } = await listStoredMessages(
		inbox.db,
		conversationId,
		queryInteger(event, 'afterSeq', 0, 2 ** 31 - 1, 0),
		queryInteger(event, 'limit', 1, 500, 200)
	);
	return json({ data: messages, hasMore });
});

/** The browser's Idempotency-Key, when it sent one (docs/inbox-api.md §5). */
export function idempotencyKeyOf(request: Request): string | undefined {
	return readIdempotencyKey(request.headers.get('idempotency-key'));
}

export const reinvite = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const body = await readJsonObject(event.request, BODY_LIMITS.fields);
	const invitation = await createInvitation(inbox, {
		account,
		conversationId,
		expiresIn: readExpiresIn(body),
		idempotencyKey: idempotencyKeyOf(event.request)
	});
	return json(invitation, 201);
});

export const confirmRewrap = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	await readJsonObject(event.request, BODY_LIMITS.fields);
	const outcome = await inbox.rewraps.confirm(account, conversationId);
	const view = await getConversationView(inbox.db, account, conversationId);
	return json(view, outcome === 'queued' ? 202 : 200);
});

export const putAssignee = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const { accountId } = await readJsonObject(event.request, BODY_LIMITS.fields);
	if (accountId !== null && !isAccountId(accountId)) {
		throw new ContractError('INVALID_REQUEST', 'accountId must be an account id, or null to unassign');
	}
	await assignConversation(inbox, account, conversationId, accountId);
	return json(await getConversationView(inbox.db, account, conversationId));
});

export const putTeamState = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const change = parseTeamStateChange(await readJsonObject(event.request, BODY_LIMITS.fields), new Date(inbox.now()));
	await changeTeamState(inbox, account, conversationId, change);
	return json(await getConversationView(inbox.db, account, conversationId));
});

const PRESENCE_STATES = ['viewing', 'typing', 'left'] as const;

/**
 * Who else is on a conversation (docs/inbox-api.md §4 "Presence"): the page says it is viewing (every
 * 10 s), typing, or has left; every open inbox hears it through the live stream, whichever process it is
 * connected to. Nothing is kept but the live event.
 */
export const postPresence = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const { state } = await readJsonObject(event.request, 1024);
	if (!PRESENCE_STATES.includes(state as (typeof PRESENCE_STATES)[number])) {
		throw new ContractError('INVALID_REQUEST', `state must be one of ${PRESENCE_STATES.join(', ')}`);
	}
	const now = new Date(inbox.now());
	await appendLiveEvent(
		inbox.db,
		'presence',
		conversationId,
		{ conversationId, accountId: account.accountId, displayName: account.displayName, state, at: now.toISOString() },
		now
	);
	return new Response(null, { status: 204 });
});

export const putCustomerLink = route(async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event, 'conversationId');
	const { linkedTo } = await readJsonObject(event.request, 1024);
	if (linkedTo !== null && (typeof linkedTo !== 'string' || !ID_RULE.test(linkedTo))) {
		throw new ContractError('INVALID_REQUEST', 'linkedTo must be a conversation id, or null to unlink');
	}
	await linkCustomer(inbox, account, conversationId, linkedTo);
	return json(await getConversationView(inbox.db, account, conversationId));
});
