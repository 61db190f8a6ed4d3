/**
 * Invitations and re-invitations (contract 6.3, 6.4; docs/inbox-api.md §5): the service makes the
 * invitation, the server generates the 32-byte invite secret, stores it against the conversation, and
 * returns the full link `<inviteUrl>#s=…&fp=…` once. A retried request (same Idempotency-Key) replays the
 * same invitation and the same secret. Only who made a pending one, or an admin, sees its link again or
 * revokes it; making, showing again and revoking are in the audit log.
 */
import { randomUUID } from 'node:crypto';
import { ContractError } from '../../errors';
import { b64uDecode, b64uEncode } from '../../crypto/encoding';
import { buildInviteLink, generateInviteSecret } from '../../crypto/invite';
import { v1 } from '../../wire/v1';
import type { Invitation } from '../../inbox-api/records';
import type { Account } from '../db/accounts';
import { recordAudit } from '../audit/record';
import { recordConversationEvent } from '../db/conversation-events';
import { ensureConversation } from '../db/conversations';
import { deleteInviteSecrets, pendingInvite, storeInviteSecret } from '../db/invites';
import { isoSeconds } from '../../crypto/rules';
import { appendLiveEvent } from '../db/live-events';
import type { ServiceDeps } from '../deps';
import { INTERACTIVE_RETRY } from '../upstream/client';

export type { Invitation };

/** What invitations need: the service, the database, the company keys, the clock and the log. */
export type InvitationOptions = ServiceDeps;

export const MIN_INVITE_SECONDS = 60;
export const MAX_INVITE_SECONDS = 2_592_000;

/** `expiresIn` of a request body: absent, or an integer of seconds in the service's range (contract-gaps §6). */
export function readExpiresIn(body: Record<string, unknown>): number | undefined {
	const value = body.expiresIn;
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_INVITE_SECONDS || value > MAX_INVITE_SECONDS) {
		throw new ContractError('INVALID_REQUEST', `expiresIn must be an integer from ${MIN_INVITE_SECONDS} to ${MAX_INVITE_SECONDS} seconds`);
	}
	return value;
}

export async function createInvitation(
	options: InvitationOptions,
	input: { account: Account; conversationId?: string; expiresIn?: number; idempotencyKey?: string }
): Promise<Invitation> {
	const kind = input.conversationId === undefined ? 'invite' : 'reinvite';
	const request =
		input.conversationId === undefined
			? v1.createInvite({ expiresIn: input.expiresIn })
			: v1.reinvite(input.conversationId, { expiresIn: input.expiresIn });
	const operationKey = input.idempotencyKey
		? `${kind}:${input.account.accountId}:${input.conversationId ?? ''}:${input.idempotencyKey}`
		: `${kind}:${randomUUID()}`;
	const { value: record } = await options.upstream.perform(operationKey, request, INTERACTIVE_RETRY);
	if (input.conversationId !== undefined && record.conversationId !== input.conversationId) {
		throw new ContractError('INVALID_RESPONSE', 'the re-invitation names another conversation');
	}

	const now = new Date(options.now());
	const expiresAt = Number.isNaN(Date.parse(record.expiresAt))
		? new Date(now.getTime() + MAX_INVITE_SECONDS * 1000)
		: new Date(record.expiresAt);
	const stored = await storeInviteSecret(
		options.db,
		{
			inviteId: record.inviteId,
			conversationId: record.conversationId,
			kind,
			secret: b64uEncode(generateInviteSecret()),
			createdBy: input.account.accountId,
			expiresAt,
			inviteUrl: record.inviteUrl,
			shortCode: record.shortCode
		},
		now
	);
	const keys = await options.companyKeys();
	const link = buildInviteLink(record.inviteUrl, b64uDecode(stored.secret, 'invite secret'), keys.current.publicKey);
	await options.db.transaction(async (tx) => {
		if (await ensureConversation(tx, record.conversationId, 'pending', now)) {
			await appendLiveEvent(tx, 'conversation.changed', record.conversationId, { conversationId: record.conversationId }, now);
		}
		if (stored.replayed) return;
		if (kind === 'invite') {
			await recordAudit(
				tx,
				{ actor: input.account, action: 'invitation.created', target: record.inviteId, details: { conversationId: record.conversationId } },
				now
			);
			return;
		}
		await recordConversationEvent(tx, { conversationId: record.conversationId, kind: 'reinvited', actor: input.account }, now);
		await recordAudit(
			tx,
			{ actor: input.account, action: 'conversation.reinvited', target: record.conversationId, details: { inviteId: record.inviteId } },
			now
		);
		await appendLiveEvent(tx, 'conversation.changed', record.conversationId, { conversationId: record.conversationId }, now);
	});
	options.log.info(`${kind === 'invite' ? 'invitation' : 're-invitation'} created`, {
		conversation: record.conversationId,
		invite: record.inviteId,
		account: input.account.accountId
	});
	return { ...record, link };
}

/** The pending invitation, when `account` may manage it: who made it, or an admin (docs/inbox-api.md §5). */
async function managedInvite(deps: ServiceDeps, account: Account, inviteId: string, now: Date) {
	const invite = await pendingInvite(deps.db, inviteId, now);
	if (!invite) throw new ContractError('NOT_FOUND', `no pending invitation ${inviteId}`);
	if (account.role !== 'admin' && invite.createdBy !== account.accountId)
		throw new ContractError('FORBIDDEN', 'only who made this invitation, or an admin, may show its link or revoke it');
	return invite;
}

/**
 * A pending invitation's link again (docs/inbox-api.md §5): its secret is still stored until the customer
 * answers, it expires or someone revokes it. Only who made it, or an admin, sees it; each showing is audited.
 */
export async function showInvitation(deps: ServiceDeps, account: Account, inviteId: string): Promise<Invitation> {
	const now = new Date(deps.now());
	const invite = await managedInvite(deps, account, inviteId, now);
	if (!invite.inviteUrl || !invite.shortCode)
		throw new ContractError('STATE_CONFLICT', 'this invitation was made before links could be shown again');
	const keys = await deps.companyKeys();
	const link = buildInviteLink(invite.inviteUrl, b64uDecode(invite.secret, 'invite secret'), keys.current.publicKey);
	await recordAudit(
		deps.db,
		{ actor: account, action: 'invitation.link_shown', target: inviteId, details: { conversationId: invite.conversationId } },
		now
	);
	return {
		inviteId: invite.inviteId,
		conversationId: invite.conversationId,
		inviteUrl: invite.inviteUrl,
		shortCode: invite.shortCode,
		expiresAt: isoSeconds(invite.expiresAt),
		link
	};
}

/**
 * Revokes a pending invitation: its secret is deleted, so its link can no longer be shown and a customer
 * who still redeems it starts an `unverified` conversation (docs/inbox-api.md §5). Only who made it, or an
 * admin; audited.
 */
export async function revokeInvitation(deps: ServiceDeps, account: Account, inviteId: string): Promise<void> {
	const now = new Date(deps.now());
	const invite = await managedInvite(deps, account, inviteId, now);
	await deps.db.transaction(async (tx) => {
		await deleteInviteSecrets(tx, [inviteId]);
		await recordAudit(
			tx,
			{ actor: account, action: 'invitation.revoked', target: inviteId, details: { conversationId: invite.conversationId } },
			now
		);
	});
}
