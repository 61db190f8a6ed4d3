/**
 * Rewrap after a re-invitation (contract 6.4): the server opens K with the company keys
 * `[current, previous…]` (6.1), seals it for the customer's new key with the wrap's `keyVersion`, and
 * uploads it, as one logical operation whose request is stored before the first attempt. Automatic only
 * when the binding verified and the team's policy lets it be; otherwise someone with access approves
 * first (with the second-person policy, not the one who re-invited, and only someone who already had
 * their role when it was asked for); never after BINDING_INVALID.
 */
import { ContractError } from '../../errors';
import { b64uDecode } from '../../crypto/encoding';
import { isoSeconds } from '../../crypto/rules';
import { openConversationKey, sealConversationKey } from '../../crypto/wrap';
import { v1 } from '../../wire/v1';
import type { Account } from '../db/accounts';
import { recordAudit } from '../audit/record';
import { recordConversationEvent } from '../db/conversation-events';
import { dueRewraps, lockConversation, setRewrapState, updateStatus } from '../db/conversations';
import type { Database, Queryable } from '../db/database';
import { appendLiveEvent } from '../db/live-events';
import type { CompanyKeys } from '../keys/files';
import { coalesce } from '../coalesce';
import { errorText, type Logger } from '../log';
import { isTransientFailure, type UpstreamClient } from '../upstream/client';

export type RewrapOutcome = 'done' | 'queued' | 'failed';

/** What the conversation flows (rewraps, invitations) need of the server. */
export interface ConversationServices {
	db: Database;
	upstream: UpstreamClient;
	companyKeys: () => Promise<CompanyKeys>;
	now: () => number;
	log: Logger;
}

/**
 * Who the approver of a rewrap is, for the thread and the audit log: their role, since when, and who gave
 * it to them. An approval counts only from someone who already had their role when the re-invitation was
 * asked for (docs/threat-model.md, "A lone admin"): an admin since before then, or an agent whose key a
 * roster accepted before then. Otherwise one admin could make a second account — an admin, or an agent
 * they sign into a roster — and approve their own request with it.
 */
async function approverStanding(tx: Queryable, account: Account, requestedAt: Date | null): Promise<Record<string, string>> {
	const [row] = await tx.query<{ granted_by_name: string | null; agent_since: Date | null }>(
		`select (select display_name from accounts where account_id = $1) as granted_by_name,
		        (select min(r.uploaded_at) from roster_versions r, jsonb_array_elements(r.agents) a
		          where a ->> 'agentKeyId' = $2 and a ->> 'publicKey' = $3) as agent_since`,
		[account.roleGrantedBy, account.agentKeyId, account.agentPublicKey]
	);
	const since = account.role === 'admin' ? account.roleSince : row.agent_since ? new Date(row.agent_since) : null;
	if (requestedAt && (since === null || since > requestedAt)) {
		throw new ContractError(
			'SECOND_PERSON_REQUIRED',
			account.role === 'admin'
				? 'you became an admin after this re-invitation was asked for: someone who already was, or an agent with access since then, must approve'
				: 'your key joined the roster after this re-invitation was asked for: someone who already had access then must approve'
		);
	}
	const standing = { approverRole: account.role, roleSince: isoSeconds(since ?? account.roleSince) };
	if (account.role !== 'admin') return standing;
	return { ...standing, roleGrantedBy: row.granted_by_name ?? (account.roleGrantedBy ? 'a removed account' : 'the command line') };
}

/** Transient failures wait longer each time, up to ten minutes. */
function nextAttemptDelayMs(attempts: number): number {
	return Math.min(10 * 60_000, 5_000 * 2 ** Math.min(attempts, 10));
}

export class RewrapWorker {
	private readonly runner = coalesce(() => this.runDue());
	private timer: ReturnType<typeof setInterval> | undefined;

	constructor(private readonly options: ConversationServices) {}

	/** Checks for due rewraps every few seconds (a retry falls due) besides being woken. */
	start(): void {
		this.timer = setInterval(() => this.wake(), 5_000);
		// Stryker disable next-line all: equivalent: the server runs on Node, whose timers always have unref
		this.timer.unref?.();
		this.wake();
	}

	async stop(): Promise<void> {
		if (this.timer) clearInterval(this.timer);
		await this.runner.idle();
	}

	wake(): void {
		this.runner.trigger();
	}

	private async runDue(): Promise<void> {
		try {
			for (const conversationId of await dueRewraps(this.options.db, new Date(this.options.now()), 20)) await this.rewrap(conversationId);
		} catch (error) {
			this.options.log.warn('rewraps paused', { reason: errorText(error) });
		}
	}

	/**
	 * The agent's confirmation of an unverified re-invitation (docs/inbox-api.md §4): queues the rewrap
	 * and tries it at once.
	 */
	async confirm(account: Account, conversationId: string): Promise<RewrapOutcome> {
		const now = new Date(this.options.now());
		await this.options.db.transaction(async (tx) => {
			const state = await lockConversation(tx, conversationId);
			if (!state) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
			if (state.trust === 'binding_invalid' || state.rewrapState === 'blocked') {
				throw new ContractError(
					'BINDING_INVALID',
					"the customer's new key failed the invitation binding: send a new re-invitation instead",
					409
				);
			}
			if (state.status !== 'awaiting_key' || !['needs_confirmation', 'failed', 'queued'].includes(state.rewrapState)) {
				throw new ContractError('CONVERSATION_NOT_AWAITING_KEY', 'the conversation is not waiting for a rewrap');
			}
			if (state.rewrapState === 'needs_confirmation' && state.rewrapRequestedBy === account.accountId) {
				throw new ContractError(
					'SECOND_PERSON_REQUIRED',
					'you re-invited this customer: another agent with access, or an admin, must approve the rewrap'
				);
			}
			if (state.rewrapState === 'needs_confirmation') {
				const approver = await approverStanding(tx, account, state.rewrapRequestedAt);
				await recordConversationEvent(tx, { conversationId, kind: 'rewrap_approved', actor: account, details: approver }, now);
				await recordAudit(tx, { actor: account, action: 'rewrap.approved', target: conversationId, details: approver }, now);
			}
			await setRewrapState(tx, conversationId, { state: 'queued', confirmedBy: account.accountId, attempts: 0 }, now);
			await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
		});
		this.options.log.info('rewrap confirmed by an agent', { conversation: conversationId, account: account.accountId });
		return this.rewrap(conversationId);
	}

	/** One attempt at a queued rewrap. */
	async rewrap(conversationId: string): Promise<RewrapOutcome> {
		const { db, log } = this.options;
		const state = await db.transaction((tx) => lockConversation(tx, conversationId));
		if (!state || state.rewrapState !== 'queued') return state?.rewrapState === 'done' ? 'done' : 'failed';
		if (!state.wrapForCompany || !state.userPublicKey)
			return this.settle(conversationId, 'failed', 'no company wrap or user key is known for this conversation');

		let request;
		try {
			const keys = await this.options.companyKeys();
			const conversationKey = openConversationKey(state.wrapForCompany, conversationId, [keys.current, ...keys.previous]);
			try {
				const wrapForUser = sealConversationKey({
					conversationKey,
					conversationId,
					keyVersion: state.wrapForCompany.keyVersion,
					recipientPublicKey: b64uDecode(state.userPublicKey, 'userPublicKey')
				});
				request = v1.rewrap(conversationId, wrapForUser);
			} finally {
				conversationKey.fill(0);
			}
		} catch (error) {
			return this.settle(conversationId, 'failed', `the company wrap does not open: ${errorText(error)}`);
		}

		try {
			const result = await this.options.upstream.perform(`rewrap:${conversationId}:${state.userPublicKey}`, request);
			return this.settle(conversationId, 'done', null, result.value.status);
		} catch (error) {
			if (error instanceof ContractError && error.code === 'CONVERSATION_NOT_AWAITING_KEY') {
				// Already rewrapped (a replay after a lost answer, or another process): nothing left to do.
				return this.settle(conversationId, 'done', null);
			}
			if (isTransientFailure(error)) {
				const attempts = state.rewrapAttempts + 1;
				const delay = nextAttemptDelayMs(attempts);
				log.warn('rewrap will be retried', { conversation: conversationId, attempts, inMs: delay, reason: errorText(error) });
				await db.transaction(async (tx) => {
					const now = new Date(this.options.now());
					await setRewrapState(
						tx,
						conversationId,
						{ state: 'queued', error: errorText(error), attempts, nextAttemptAt: new Date(now.getTime() + delay) },
						now
					);
					await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
				});
				return 'queued';
			}
			return this.settle(conversationId, 'failed', errorText(error));
		}
	}

	private async settle(
		conversationId: string,
		outcome: 'done' | 'failed',
		error: string | null,
		status?: 'pending' | 'active' | 'awaiting_key' | 'closed'
	): Promise<RewrapOutcome> {
		const now = new Date(this.options.now());
		await this.options.db.transaction(async (tx) => {
			await setRewrapState(tx, conversationId, { state: outcome, error }, now);
			if (outcome === 'done') await updateStatus(tx, conversationId, { status: status ?? 'active' }, now);
			await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
		});
		(outcome === 'done' ? this.options.log.info : this.options.log.error)(`rewrap ${outcome}`, {
			conversation: conversationId,
			reason: error ?? undefined
		});
		return outcome;
	}
}
