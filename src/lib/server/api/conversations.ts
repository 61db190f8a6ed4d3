/**
 * The inbox's own conversation routes (docs/inbox-api.md §4): the list and one conversation as the
 * calling account sees them, the envelopes stored as received, assignment, re-invitations, and the
 * explicit confirmation of an unverified re-invitation's rewrap.
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import { b64uDecode, b64uEncode } from '../../crypto/encoding';
import { CONVERSATION_STATUSES, type ConversationStatus } from '../../wire/v1';
import { assignConversation } from '../conversations/assignment';
import { linkCustomer } from '../conversations/customer-links';
import { ID_RULE, readIdempotencyKey } from '../../crypto/rules';
import { isAccountId } from '../db/accounts';
import { changeTeamState, parseTeamStateChange } from '../conversations/lifecycle';
import { requireConversationView, listConversationViews, type Trust } from '../db/conversations';
import { countConversationViews } from '../db/conversation-counts';
import { listStoredMessages } from '../db/messages';
import { appendLiveEvent, newestLiveEventId } from '../db/live-events';
import { readJsonObject, BODY_LIMITS } from '../http/responses';
import { idParam, requireSession, type ApiEvent, answer, handle } from './event';

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
export const listConversations = handle(API.listConversations, async (event, inbox) => {
	const { account } = requireSession(event);
	const liveEventId = await newestLiveEventId(inbox.db);
	const { views, nextAfter } = await listConversationViews(inbox.db, account, {
		status: queryChoice<ConversationStatus>(event, 'status', CONVERSATION_STATUSES),
		trust: queryChoice(event, 'trust', TRUSTS),
		limit: queryInteger(event, 'limit', 1, 200, 50),
		after: readCursor(event.url.searchParams.get('cursor'))
	});
	const nextCursor = nextAfter
		? b64uEncode(new TextEncoder().encode(JSON.stringify([nextAfter.lastActivityAt, nextAfter.conversationId])))
		: null;
	return answer(API.listConversations, { data: views, nextCursor, liveEventId });
});

/** The list's counts with the list's filters (docs/inbox-api.md §4 "Counts"): what the account may read. */
export const countConversations = handle(API.countConversations, async (event, inbox) => {
	const { account } = requireSession(event);
	const counts = await countConversationViews(
		inbox.db,
		account,
		{
			status: queryChoice<ConversationStatus>(event, 'status', CONVERSATION_STATUSES),
			trust: queryChoice(event, 'trust', TRUSTS)
		},
		new Date(inbox.now())
	);
	return answer(API.countConversations, counts);
});

export const getConversation = handle(API.getConversation, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	return answer(API.getConversation, await requireConversationView(inbox.db, account, conversationId));
});

export const listMessages = handle(API.listStoredMessages, async (event, inbox) => {
	requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	const { messages, hasMore } = await listStoredMessages(
		inbox.db,
		conversationId,
		queryInteger(event, 'afterSeq', 0, 2 ** 31 - 1, 0),
		queryInteger(event, 'limit', 1, 500, 200)
	);
	return answer(API.listStoredMessages, { data: messages, hasMore });
});

/** The browser's Idempotency-Key, when it sent one (docs/inbox-api.md §5). */
export function idempotencyKeyOf(request: Request): string | undefined {
	return readIdempotencyKey(request.headers.get('idempotency-key'));
}

export const confirmRewrap = handle(API.confirmRewrap, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	await readJsonObject(event.request, BODY_LIMITS.fields);
	const outcome = await inbox.rewraps.confirm(account, conversationId);
	const view = await requireConversationView(inbox.db, account, conversationId);
	return answer(API.confirmRewrap, view, outcome === 'queued' ? 202 : 200);
});

export const putAssignee = handle(API.setAssignee, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	const { accountId } = await readJsonObject(event.request, BODY_LIMITS.fields);
	if (accountId !== null && !isAccountId(accountId)) {
		throw new ContractError('INVALID_REQUEST', 'accountId must be an account id, or null to unassign');
	}
	await assignConversation(inbox, account, conversationId, accountId);
	return answer(API.setAssignee, await requireConversationView(inbox.db, account, conversationId));
});

export const putTeamState = handle(API.setTeamState, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	const change = parseTeamStateChange(await readJsonObject(event.request, BODY_LIMITS.fields), new Date(inbox.now()));
	await changeTeamState(inbox, account, conversationId, change);
	if (change.snoozedUntil) inbox.snoozes.snoozedUntil(change.snoozedUntil);
	return answer(API.setTeamState, await requireConversationView(inbox.db, account, conversationId));
});

const PRESENCE_STATES = ['viewing', 'typing', 'left'] as const;

/**
 * Who else is on a conversation (docs/inbox-api.md §4 "Presence"): the page says it is viewing (every
 * 10 s), typing, or has left; every open inbox hears it through the live stream, whichever process it is
 * connected to. Nothing is kept but the live event.
 */
export const postPresence = handle(API.postPresence, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
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
	return answer(API.postPresence, undefined);
});

export const putCustomerLink = handle(API.linkCustomer, async (event, inbox) => {
	const { account } = requireSession(event);
	const conversationId = idParam(event.params.conversationId, 'conversationId');
	const { linkedTo } = await readJsonObject(event.request, 1024);
	if (linkedTo !== null && (typeof linkedTo !== 'string' || !ID_RULE.test(linkedTo))) {
		throw new ContractError('INVALID_REQUEST', 'linkedTo must be a conversation id, or null to unlink');
	}
	await linkCustomer(inbox, account, conversationId, linkedTo);
	return answer(API.linkCustomer, await requireConversationView(inbox.db, account, conversationId));
});
