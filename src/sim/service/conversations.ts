/**
 * Conversation life of the simulated service (contract 3, 6.3, 6.4; docs/contract-gaps.md §4, §6):
 * invitations and re-invitations, the start on redemption, rewrap, close and reopen, the user's
 * deletion, and the shape checks of wraps the service can make without a key.
 */
import { ContractError, b64uDecode, isIntegerIn, MAX_KEY_VERSION, sealedWrapLength, type Wrap } from '../../lib/crypto/index';
import type { SimContext } from '../context';
import { newConversationId, newInviteId, newShortCode } from '../ids';
import { isoSeconds } from '../../lib/crypto/index';
import type { Company, Conversation, Invite, StoredAgentWrap } from '../state';
import { emitConversationStarted, emitConversationUpdated } from '../webhooks/events';

export const DEFAULT_INVITE_SECONDS = 604_800;
export const MIN_INVITE_SECONDS = 60;
export const MAX_INVITE_SECONDS = 2_592_000;

/** The company's conversation, or `404 NOT_FOUND` (also for another company's). */
export function findConversation(ctx: SimContext, company: Company, conversationId: string): Conversation {
	const conversation = ctx.store.conversations.get(conversationId);
	if (!conversation || conversation.companyId !== company.companyId) {
		throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
	}
	return conversation;
}

export function inviteUrl(ctx: SimContext, invite: Invite): string {
	return `${ctx.publicUrl}/invite/${invite.inviteId}`;
}

export function inviteResponse(ctx: SimContext, invite: Invite) {
	return {
		inviteId: invite.inviteId,
		conversationId: invite.conversationId,
		inviteUrl: inviteUrl(ctx, invite),
		shortCode: invite.shortCode,
		expiresAt: isoSeconds(invite.expiresAtMs)
	};
}

/** `expiresIn` of an invitation request: seconds, 60 … 2,592,000, default 604,800. */
export function requireExpiresIn(body: Record<string, unknown>): number {
	if (body.expiresIn === undefined) return DEFAULT_INVITE_SECONDS;
	if (!isIntegerIn(body.expiresIn, MIN_INVITE_SECONDS, MAX_INVITE_SECONDS)) {
		throw new ContractError('INVALID_REQUEST', `expiresIn must be an integer from ${MIN_INVITE_SECONDS} to ${MAX_INVITE_SECONDS} seconds`);
	}
	return body.expiresIn;
}

function newInvite(ctx: SimContext, conversation: Conversation, isReinvite: boolean, expiresInSeconds: number): Invite {
	const now = ctx.clock.nowMs();
	let shortCode = newShortCode();
	while (ctx.store.inviteByShortCode.has(shortCode)) shortCode = newShortCode();
	const invite: Invite = {
		inviteId: newInviteId(),
		companyId: conversation.companyId,
		conversationId: conversation.conversationId,
		isReinvite,
		shortCode,
		createdAtMs: now,
		expiresAtMs: now + expiresInSeconds * 1000,
		redeemedAtMs: null,
		supersededAtMs: null
	};
	ctx.store.addInvite(invite);
	return invite;
}

/** `POST /v1/invites`: a new `pending` conversation and its invitation. */
export function createInvitation(ctx: SimContext, company: Company, expiresInSeconds: number): Invite {
	const now = ctx.clock.nowMs();
	const conversation: Conversation = {
		conversationId: newConversationId(),
		companyId: company.companyId,
		status: 'pending',
		keyVersion: null,
		wrapForCompany: null,
		wrapForUser: null,
		userPublicKey: null,
		userDeleted: false,
		createdAtMs: now,
		startedAtMs: null,
		lastMessageAtMs: null,
		closedAtMs: null,
		messages: [],
		agentWraps: [],
		companyReadUpTo: null,
		userReadUpTo: null,
		companyTypingUntilMs: null
	};
	ctx.store.addConversation(conversation);
	return newInvite(ctx, conversation, false, expiresInSeconds);
}

/** `POST /v1/conversations/{id}/reinvite`: replaces any earlier unused re-invitation. */
export function createReinvitation(ctx: SimContext, conversation: Conversation, expiresInSeconds: number): Invite {
	if (conversation.status === 'pending')
		throw new ContractError('CONVERSATION_PENDING', 'a pending conversation is re-invited only once started');
	if (conversation.userDeleted) throw new ContractError('USER_DELETED', 'the user of this conversation was deleted');
	const now = ctx.clock.nowMs();
	for (const earlier of ctx.store.invites.values()) {
		if (earlier.conversationId === conversation.conversationId && earlier.redeemedAtMs === null && earlier.supersededAtMs === null) {
			earlier.supersededAtMs = now;
			ctx.store.changed('invites', earlier.inviteId);
		}
	}
	return newInvite(ctx, conversation, true, expiresInSeconds);
}

/** An invitation the app may still redeem, with its conversation. */
export function redeemableInvite(ctx: SimContext, invite: Invite): Conversation {
	const conversation = ctx.store.conversations.get(invite.conversationId);
	if (!conversation) throw new ContractError('NOT_FOUND', 'the conversation of this invitation no longer exists');
	if (invite.redeemedAtMs !== null) throw new ContractError('STATE_CONFLICT', 'this invitation was already redeemed');
	if (invite.supersededAtMs !== null)
		throw new ContractError('INVITATION_EXPIRED', 'this invitation was replaced by a newer re-invitation');
	if (invite.expiresAtMs <= ctx.clock.nowMs()) throw new ContractError('INVITATION_EXPIRED', 'this invitation has expired');
	if (conversation.userDeleted) throw new ContractError('USER_DELETED', 'the user of this conversation was deleted');
	return conversation;
}

/** Redemption of an invitation (`active`) or a re-invitation (`awaiting_key`), and its event. */
export function startConversation(
	ctx: SimContext,
	invite: Invite,
	conversation: Conversation,
	input: {
		userPublicKey: string;
		wrapForUser: Wrap | null;
		wrapForCompany?: Wrap;
		inviteBinding: string | null;
		agentWraps: StoredAgentWrap[];
	}
): void {
	const now = ctx.clock.nowMs();
	invite.redeemedAtMs = now;
	conversation.userPublicKey = input.userPublicKey;
	conversation.wrapForUser = input.wrapForUser;
	if (invite.isReinvite) {
		conversation.status = 'awaiting_key';
		conversation.closedAtMs = null;
	} else {
		conversation.status = 'active';
		conversation.wrapForCompany = input.wrapForCompany as Wrap;
		conversation.keyVersion = conversation.wrapForCompany.keyVersion;
		conversation.startedAtMs = now;
		conversation.agentWraps = input.agentWraps;
	}
	ctx.store.changed('invites', invite.inviteId);
	ctx.store.changed('conversations', conversation.conversationId);
	emitConversationStarted(ctx.webhooks, conversation, {
		isReinvite: invite.isReinvite,
		inviteBinding: input.inviteBinding,
		agentWraps: invite.isReinvite ? [] : input.agentWraps
	});
}

/**
 * The checks a service can make on a wrap without any key (docs/contract-gaps.md §6): a well-formed
 * `keyVersion` and `sealed` of exactly `48 + 40 + len(conversationId)` bytes (`400 INVALID_WRAP`),
 * then the conversation's key version (`409 KEY_VERSION_MISMATCH`).
 */
export function requireWrap(conversation: Conversation, value: unknown, what: string): Wrap {
	if (typeof value !== 'object' || value === null || Array.isArray(value))
		throw new ContractError('INVALID_WRAP', `${what} must be a wrap object`);
	const candidate = value as Record<string, unknown>;
	if (!isIntegerIn(candidate.keyVersion, 1, MAX_KEY_VERSION)) {
		throw new ContractError('INVALID_WRAP', `${what}.keyVersion must be an integer from 1 to 2^31-1`);
	}
	let sealedLength: number;
	try {
		sealedLength = b64uDecode(candidate.sealed, `${what}.sealed`).length;
	} catch (error) {
		throw new ContractError('INVALID_WRAP', (error as Error).message);
	}
	const expected = sealedWrapLength(conversation.conversationId);
	if (sealedLength !== expected) throw new ContractError('INVALID_WRAP', `${what}.sealed must be ${expected} bytes, got ${sealedLength}`);
	if (candidate.keyVersion !== conversation.keyVersion) {
		throw new ContractError(
			'KEY_VERSION_MISMATCH',
			`${what}.keyVersion ${candidate.keyVersion} differs from the conversation's ${conversation.keyVersion}`
		);
	}
	return { keyVersion: candidate.keyVersion, sealed: candidate.sealed as string };
}

/** `POST …/rewrap`: the new device's wrap; `awaiting_key` → `active`. */
export function rewrapConversation(ctx: SimContext, conversation: Conversation, wrapForUser: unknown): void {
	if (conversation.status !== 'awaiting_key') {
		throw new ContractError('CONVERSATION_NOT_AWAITING_KEY', `the conversation is ${conversation.status}, not awaiting_key`);
	}
	conversation.wrapForUser = requireWrap(conversation, wrapForUser, 'wrapForUser');
	conversation.status = 'active';
	ctx.store.changed('conversations', conversation.conversationId);
	emitConversationUpdated(ctx.webhooks, conversation);
}

/** `POST …/close`; a closed conversation is returned unchanged, a pending one cannot be closed. */
export function closeConversation(ctx: SimContext, conversation: Conversation): void {
	if (conversation.status === 'closed') return;
	if (conversation.status === 'pending') throw new ContractError('CONVERSATION_PENDING', 'a pending conversation cannot be closed');
	conversation.status = 'closed';
	conversation.closedAtMs = ctx.clock.nowMs();
	ctx.store.changed('conversations', conversation.conversationId);
	emitConversationUpdated(ctx.webhooks, conversation);
}

/** A message from either side reopens a closed conversation. */
export function reopenIfClosed(ctx: SimContext, conversation: Conversation): void {
	if (conversation.status !== 'closed') return;
	conversation.status = 'active';
	conversation.closedAtMs = null;
	ctx.store.changed('conversations', conversation.conversationId);
	emitConversationUpdated(ctx.webhooks, conversation);
}

/** The user deleted their account: the conversation keeps its state and rejects new messages. */
export function markUserDeleted(ctx: SimContext, conversation: Conversation): void {
	if (conversation.userDeleted) return;
	conversation.userDeleted = true;
	ctx.store.changed('conversations', conversation.conversationId);
	emitConversationUpdated(ctx.webhooks, conversation);
}
