/**
 * Agents for admins (docs/inbox-api.md "Administration"): the list with keys, fingerprints (contract
 * 2.2) and roster membership; disabling, enabling and removing accounts (their sessions end at once, in
 * every process); resetting a lost key; one-time invitation links and joining through one.
 */
import { b64uDecode, ContractError, fingerprintB64u } from '../../crypto/index';
import { recordAccountCreated, validateNewAccount } from './new-account';
import {
	clearAgentKey,
	createAccount,
	deleteAccount,
	getAccount,
	lastActivity,
	listAccounts,
	setAccountDisabled,
	type Account
} from '../db/accounts';
import {
	createAgentInvitation,
	listPendingAgentInvitations,
	lockInvitationByToken,
	markInvitationUsed,
	revokeAgentInvitation
} from '../db/agent-invitations';
import { isoSeconds } from '../../crypto/rules';
import { latestStoredRoster } from '../db/rosters';
import { errorText } from '../log';
import { latestAcceptedRoster } from './roster';
import { deleteSessionsOf } from '../auth/sessions';
import type { SessionCache } from '../auth/session-cache';
import type { PasswordHasher } from '../auth/passwords';
import type { InboxConfig } from '../config';
import type { RosterDeps } from './roster';
import type { AdminAgent, AgentInvitation, AgentInvitationRequest, PendingAgentInvitation } from '../../inbox-api/agents';
import { recordAudit } from '../audit/record';

/** What managing accounts needs: the roster's flows, the password hasher, the session cache and the public origin. */
export type AgentsDeps = RosterDeps & {
	readonly config: Pick<InboxConfig, 'origin' | 'serviceCompanyId'>;
	readonly passwords: PasswordHasher;
	readonly sessionCache: SessionCache;
};

export async function listAgents(deps: AgentsDeps): Promise<AdminAgent[]> {
	// the service's latest roster (one signed elsewhere is verified and kept), else the one stored here
	const latestRoster = latestAcceptedRoster(deps).catch(async (error) => {
		deps.log.warn('the service roster could not be read; showing the stored one', { reason: errorText(error) });
		return latestStoredRoster(deps.db);
	});
	const [accounts, activity, roster] = await Promise.all([listAccounts(deps.db), lastActivity(deps.db), latestRoster]);
	const inRoster = new Set((roster?.agents ?? []).map((agent) => `${agent.agentKeyId}:${agent.publicKey}`));
	return accounts.map((account) => ({
		accountId: account.accountId,
		username: account.username,
		displayName: account.displayName,
		role: account.role,
		disabled: account.disabledAt !== null,
		agentKeyId: account.agentKeyId,
		agentPublicKey: account.agentPublicKey,
		fingerprint: account.agentPublicKey ? fingerprintB64u(b64uDecode(account.agentPublicKey, 'agentPublicKey')) : null,
		inRoster: account.agentKeyId !== null && inRoster.has(`${account.agentKeyId}:${account.agentPublicKey}`),
		lastActiveAt: activity.has(account.accountId) ? isoSeconds(activity.get(account.accountId) as Date) : null
	}));
}

async function otherAccount(deps: AgentsDeps, admin: Account, accountId: string, action: string): Promise<Account> {
	if (accountId === admin.accountId) throw new ContractError('STATE_CONFLICT', `you cannot ${action} your own account`);
	const account = await getAccount(deps.db, accountId);
	if (!account) throw new ContractError('NOT_FOUND', `no account ${accountId}`);
	return account;
}

export async function setDisabled(deps: AgentsDeps, admin: Account, accountId: string, disabled: boolean): Promise<void> {
	await otherAccount(deps, admin, accountId, disabled ? 'disable' : 'enable');
	const now = new Date(deps.now());
	await deps.db.transaction(async (tx) => {
		await setAccountDisabled(tx, accountId, disabled ? now : null);
		if (disabled) await deleteSessionsOf(tx, accountId);
		await recordAudit(tx, { actor: admin, action: disabled ? 'agent.disabled' : 'agent.enabled', target: accountId }, now);
	});
	deps.sessionCache.dropAccount(accountId);
	deps.log.info(disabled ? 'account disabled' : 'account enabled', { account: accountId, by: admin.accountId });
}

export async function removeAgent(deps: AgentsDeps, admin: Account, accountId: string): Promise<void> {
	const account = await otherAccount(deps, admin, accountId, 'remove');
	const now = new Date(deps.now());
	await deps.db.transaction(async (tx) => {
		await deleteSessionsOf(tx, accountId);
		await deleteAccount(tx, accountId);
		await recordAudit(tx, { actor: admin, action: 'agent.removed', target: accountId, details: { role: account.role } }, now);
	});
	deps.sessionCache.dropAccount(accountId);
	deps.log.info('account removed', { account: accountId, by: admin.accountId });
}

export async function resetAgentKey(deps: AgentsDeps, admin: Account, accountId: string): Promise<void> {
	const now = new Date(deps.now());
	const account = await deps.db.transaction(async (tx) => {
		const found = await getAccount(tx, accountId);
		if (!found) throw new ContractError('NOT_FOUND', `no account ${accountId}`);
		await clearAgentKey(tx, accountId);
		await recordAudit(tx, { actor: admin, action: 'agent.key_reset', target: accountId, details: { previousKey: found.agentKeyId } }, now);
		return found;
	});
	deps.sessionCache.dropAccount(accountId);
	deps.log.info('agent key reset', { account: accountId, previousKey: account.agentKeyId, by: admin.accountId });
}

export async function inviteAgent(deps: AgentsDeps, admin: Account, body: Record<string, unknown>): Promise<AgentInvitation> {
	const { displayName, role, validForHours } = body;
	if (typeof displayName !== 'string' || displayName.trim().length === 0 || displayName.length > 100)
		throw new ContractError('INVALID_REQUEST', 'displayName must be 1 to 100 characters');
	if (role !== 'agent' && role !== 'admin') throw new ContractError('INVALID_REQUEST', 'role must be agent or admin');
	if (typeof validForHours !== 'number' || !Number.isInteger(validForHours) || validForHours < 1 || validForHours > 168)
		throw new ContractError('INVALID_REQUEST', 'validForHours must be an integer from 1 to 168');
	const request: AgentInvitationRequest = { displayName: displayName.trim(), role, validForHours };
	const now = new Date(deps.now());
	const { invitation, token } = await createAgentInvitation(
		deps.db,
		{
			displayName: request.displayName,
			role: request.role,
			createdBy: admin.accountId,
			expiresAt: new Date(now.getTime() + request.validForHours * 3600_000)
		},
		now
	);
	await recordAudit(
		deps.db,
		{
			actor: admin,
			action: 'agent.invited',
			target: invitation.invitationId,
			details: { role: request.role, displayName: request.displayName }
		},
		now
	);
	deps.log.info('agent invited', { invitation: invitation.invitationId, role: request.role, by: admin.accountId });
	return {
		invitationId: invitation.invitationId,
		url: `${deps.config.origin}/join#t=${token}`,
		expiresAt: isoSeconds(invitation.expiresAt)
	};
}

/** Creates the invited person's account with the username and password they chose; the link is spent. */
export async function joinWithInvitation(deps: AgentsDeps, body: Record<string, unknown>): Promise<Account> {
	const { token } = body;
	if (typeof token !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(token))
		throw new ContractError('NOT_FOUND', 'this invitation link is not valid');
	const now = new Date(deps.now());
	// Checked before the slow password hash, and again inside the transaction that spends the link.
	const usable = async (tx = deps.db as Parameters<typeof lockInvitationByToken>[0]) => {
		const invitation = await lockInvitationByToken(tx, token);
		if (!invitation) throw new ContractError('NOT_FOUND', 'this invitation link is not valid');
		if (invitation.usedAt || invitation.expiresAt <= now)
			throw new ContractError('INVITATION_EXPIRED', 'this invitation link was already used or has expired; ask for a new one');
		return invitation;
	};
	const invitation = await usable();
	const fields = validateNewAccount({
		username: body.username,
		password: body.password,
		displayName: invitation.displayName,
		role: invitation.role
	});
	const passwordHash = await deps.passwords.hash(fields.password);
	const account = await deps.db.transaction(async (tx) => {
		const current = await usable(tx);
		const created = await createAccount(tx, { ...fields, passwordHash, grantedBy: current.createdBy }, now);
		await markInvitationUsed(tx, current.invitationId, created.accountId, now);
		await recordAccountCreated(tx, created, { via: 'invitation', invitationId: current.invitationId }, now);
		return created;
	});
	deps.log.info('account created from an invitation', {
		account: account.accountId,
		invitation: invitation.invitationId,
		role: account.role
	});
	return account;
}

export async function pendingAgentInvitations(deps: AgentsDeps): Promise<PendingAgentInvitation[]> {
	return (await listPendingAgentInvitations(deps.db, new Date(deps.now()))).map((invitation) => ({
		invitationId: invitation.invitationId,
		displayName: invitation.displayName,
		role: invitation.role,
		createdAt: isoSeconds(invitation.createdAt),
		expiresAt: isoSeconds(invitation.expiresAt),
		createdByName: invitation.createdByName
	}));
}

/** Revokes a pending link: it stops working at once. `404 NOT_FOUND` when it is used, expired or unknown. */
export async function revokeInvitation(deps: AgentsDeps, admin: Account, invitationId: string): Promise<void> {
	const now = new Date(deps.now());
	await deps.db.transaction(async (tx) => {
		const revoked = await revokeAgentInvitation(tx, invitationId, now);
		if (!revoked) throw new ContractError('NOT_FOUND', `no pending invitation ${invitationId}`);
		await recordAudit(
			tx,
			{ actor: admin, action: 'agent.invitation_revoked', target: invitationId, details: { displayName: revoked.displayName } },
			now
		);
	});
}
