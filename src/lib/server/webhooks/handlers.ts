/**
 * What each stored webhook event does to the inbox's state (contract 6; contract-gaps §9), inside the
 * transaction that marks it processed, so that processing twice changes nothing. Consecutive
 * `message.created` events are stored together (a burst of messages costs a few statements, not a few
 * per message). Unknown event types and unknown fields are ignored (contract 9 rule 2).
 */
import { parseConversationStarted, parseConversationUpdated, parseMessageRead, parseWebhookEvent, type WebhookEvent } from '../../wire/v1';
import { b64uDecode } from '../../crypto/encoding';
import { fingerprintDisplay } from '../../crypto/keys';
import { decideTrust } from '../conversations/trust';
import { recordAudit } from '../audit/record';
import { recordConversationEvent } from '../db/conversation-events';
import { readSettings } from '../db/settings';
import {
	ensureConversation,
	lockConversation,
	recordStart,
	setRewrapState,
	recordActivities,
	updateStatus,
	type RewrapState
} from '../db/conversations';
import type { Queryable } from '../db/database';
import type { StoredEvent } from '../db/webhook-events';
import type { LiveEventType } from '../db/live-events';
import { storeAgentWraps, storeMessages } from '../db/messages';
import { reopenOnCustomerMessages } from '../conversations/lifecycle';
import type { Logger } from '../log';
import { continuingRequest } from '../request-context';
import { dateOr, storedMessageOf } from './message-batch';

export interface HandlerContext {
	now: Date;
	log: Logger;
	/** Announces a change to the live streams, in the same transaction (docs/inbox-api.md §7). */
	live(type: LiveEventType, conversationId: string, payload: Record<string, unknown>): void;
	/** Runs after the transaction committed (e.g. wake the rewrap worker). */
	afterCommit(action: () => void): void;
	/** The rewrap worker, woken when a verified re-invitation queued a rewrap. */
	wakeRewraps(): void;
	/** Told after a conversation started, for the profiles written with its invitation. */
	conversationStarted(): void;
}

async function conversationStarted(tx: Queryable, event: WebhookEvent, ctx: HandlerContext): Promise<void> {
	const started = parseConversationStarted(event.data);
	const id = started.conversationId;
	const eventAt = dateOr(event.createdAt, ctx.now);
	await ensureConversation(tx, id, 'active', ctx.now);
	const state = await lockConversation(tx, id);
	if (state?.startedEventAt && state.startedEventAt > eventAt) {
		// An older start delivered late (retries, reordering): the newer key stays.
		ctx.log.info('older conversation.started ignored', { conversation: id, event: event.id });
		await storeAgentWraps(tx, id, started.agentWraps, ctx.now);
		return;
	}
	const { trust, reason, reinvitedBy, reinvitedAt } = await decideTrust(tx, started);
	const secondPerson = started.isReinvite && (await readSettings(tx)).reinviteRewrap === 'second_person';
	const rewrapState: RewrapState = !started.isReinvite
		? 'none'
		: trust === 'verified'
			? secondPerson
				? 'needs_confirmation'
				: 'queued'
			: trust === 'unverified'
				? 'needs_confirmation'
				: 'blocked';
	await recordStart(
		tx,
		{
			conversationId: id,
			status: started.isReinvite ? 'awaiting_key' : 'active',
			trust,
			wrapForCompany: started.conversationKey,
			userPublicKey: started.userPublicKey,
			rewrapState,
			rewrapRequestedBy: secondPerson ? reinvitedBy : null,
			rewrapRequestedAt: rewrapState === 'needs_confirmation' ? reinvitedAt : null,
			startedEventAt: eventAt
		},
		ctx.now
	);
	if (started.isReinvite) {
		const fingerprint = fingerprintDisplay(b64uDecode(started.userPublicKey, 'userPublicKey'));
		await recordConversationEvent(tx, { conversationId: id, kind: 'key_changed', actor: null, details: { fingerprint, trust } }, ctx.now);
		await recordAudit(
			tx,
			{ actor: null, actorName: 'customer', action: 'conversation.key_changed', target: id, details: { fingerprint, trust } },
			ctx.now
		);
	}
	await storeAgentWraps(tx, id, started.agentWraps, ctx.now);
	ctx.live('conversation.started', id, { conversationId: id });
	(trust === 'binding_invalid' ? ctx.log.warn : ctx.log.info)('conversation started', {
		conversation: id,
		reinvite: started.isReinvite,
		trust,
		reason,
		agentWraps: started.agentWraps.length
	});
	if (rewrapState === 'queued') ctx.afterCommit(() => ctx.wakeRewraps());
	ctx.afterCommit(() => ctx.conversationStarted());
}

/** A run of `message.created` events: the envelopes stored as received, once each (by message id). */
async function messagesCreated(tx: Queryable, events: readonly WebhookEvent[], ctx: HandlerContext): Promise<void> {
	const entries = events.map((event) => storedMessageOf(event, ctx.now));
	const fresh = await storeMessages(tx, entries);
	const latest = new Map<string, Date>();
	for (const { message, createdAt } of entries) {
		// A message id repeated within the run is new only the first time.
		if (!fresh.delete(message.messageId)) continue;
		const previous = latest.get(message.conversationId);
		if (!previous || previous < createdAt) latest.set(message.conversationId, createdAt);
		ctx.live('message.created', message.conversationId, { conversationId: message.conversationId, message });
	}
	await reopenOnCustomerMessages(tx, [...latest.keys()], ctx.now);
	await recordActivities(tx, latest, ctx.now);
	for (const conversationId of latest.keys()) ctx.live('conversation.changed', conversationId, { conversationId });
}

async function conversationUpdated(tx: Queryable, event: WebhookEvent, ctx: HandlerContext): Promise<void> {
	const update = parseConversationUpdated(event.data);
	await ensureConversation(tx, update.conversationId, update.status ?? 'active', ctx.now);
	const state = await lockConversation(tx, update.conversationId);
	await updateStatus(tx, update.conversationId, update, ctx.now);
	// Active again after awaiting a key: the rewrap arrived, whoever uploaded it.
	if (
		update.status === 'active' &&
		state &&
		['queued', 'needs_confirmation', 'failed'].includes(state.rewrapState) &&
		state.status === 'awaiting_key'
	) {
		await setRewrapState(tx, update.conversationId, { state: 'done' }, ctx.now);
	}
	ctx.live('conversation.changed', update.conversationId, { conversationId: update.conversationId });
}

async function messageRead(tx: Queryable, event: WebhookEvent, ctx: HandlerContext): Promise<void> {
	const read = parseMessageRead(event.data);
	ctx.live('message.read', read.conversationId, read);
}

const HANDLERS: Record<string, (tx: Queryable, event: WebhookEvent, ctx: HandlerContext) => Promise<void>> = {
	'conversation.started': conversationStarted,
	'message.created': (tx, event, ctx) => messagesCreated(tx, [event], ctx),
	'conversation.updated': conversationUpdated,
	'message.read': messageRead
};

/**
 * Applies stored events in order; throws a ContractError for an event whose data is malformed (then
 * nothing of the call must be kept: the caller's transaction rolls back). Returns how many were ignored.
 */
export async function applyEvents(
	tx: Queryable,
	stored: readonly Pick<StoredEvent, 'eventId' | 'rawBody' | 'requestId'>[],
	ctx: HandlerContext
): Promise<number> {
	let ignored = 0;
	let run: WebhookEvent[] = [];
	const flush = async () => {
		if (run.length) await messagesCreated(tx, run, ctx);
		run = [];
	};
	for (const { eventId, rawBody, requestId } of stored) {
		// The id the event was stored under: the body's, or X-Service-Event-Id's when the body has none.
		const event = parseWebhookEvent(rawBody, eventId);
		if (event.type === 'message.created') {
			run.push(event);
			continue;
		}
		await flush();
		const handler = HANDLERS[event.type];
		// what the handler logs carries the id of the request that stored the event
		if (handler) await continuingRequest(requestId, () => handler(tx, event, ctx));
		else ignored++;
	}
	await flush();
	return ignored;
}
