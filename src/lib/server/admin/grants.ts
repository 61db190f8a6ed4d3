/**
 * Grant jobs (contract 6.7, last points; docs/inbox-api.md "Administration"): after a roster adds agents,
 * K of every earlier conversation is opened with the company keys `[current, previous, …]` (6.1), sealed
 * for each new agent (2.4) and uploaded with `POST /v1/conversations/{id}/agent-wraps`.
 *
 * Durable: the job, the conversations it lists from the service and a done mark per conversation live in
 * the database. Idempotent: each (job, conversation) upload is an outgoing operation whose key and exact
 * body are stored before the first attempt, so a retry, also after a crash, repeats the same request.
 * Owned (docs/operations.md "Several processes"): a process works on a job under a lease renewed while it
 * works; every process looks for runnable jobs every few seconds, so when the owner dies another one
 * takes the job over once the lease ran out, and a process that lost its lease records nothing more.
 * Up to `concurrency` uploads are in flight.
 */
import pMap from 'p-map';
import { ContractError } from '../../errors';
import { b64uDecode } from '../../crypto/encoding';
import { openConversationKey, sealConversationKey, type Wrap } from '../../crypto/wrap';
import { parseAgentWrapsUpload, v1, type V1Request } from '../../wire/v1';
import { coalesce } from '../coalesce';
import { isoSeconds } from '../../crypto/rules';
import type { Queryable } from '../db/database';
import type { ConversationServices } from '../conversations/rewrap';
import {
	addGrantItems,
	finishGrantJob,
	getGrantJob,
	grantOperationKey,
	pendingGrantItems,
	claimGrantJob,
	releaseGrantJob,
	renewGrantLease,
	settleGrantItems,
	type GrantItem,
	type GrantJob
} from '../db/grant-jobs';
import { DEFAULT_LEASE_MS, LeaseLostError, newLease, renewWhileWorking } from '../db/leases';
import { appendLiveEvent } from '../db/live-events';
import { storeAgentWrapsOfConversations } from '../db/messages';
import { completeOperations, loadOrCreateOperations, type StoredOperation } from '../db/operations';
import type { CompanyKeys } from '../keys/files';
import { errorText } from '../log';
import { isTransientFailure, operationSettled } from '../upstream/client';
import type { GrantJobView } from '../../inbox-api/roster';

export function grantJobView(job: GrantJob): GrantJobView {
	return {
		jobId: job.jobId,
		rosterVersion: job.rosterVersion,
		agentKeyIds: job.agents.map((agent) => agent.agentKeyId),
		state: job.state,
		total: job.total,
		done: job.done,
		failed: job.failed,
		startedAt: isoSeconds(job.startedAt),
		finishedAt: job.finishedAt ? isoSeconds(job.finishedAt) : null,
		lastError: job.lastError
	};
}

/** Tells the admins' live streams where a job stands (docs/inbox-api.md §7, `grant.progress`). */
export async function announceGrantProgress(tx: Queryable, job: GrantJob, now: Date): Promise<void> {
	await appendLiveEvent(tx, 'grant.progress', null, { ...grantJobView(job) }, now);
}

export interface GrantRunnerOptions extends ConversationServices {
	/** Uploads in flight at once. */
	concurrency?: number;
	/** Conversations read, sealed and marked together. */
	batchSize?: number;
	/** How long a claim on a job holds without renewal (default DEFAULT_LEASE_MS); renewed every third of it while the job is worked on. */
	leaseMs?: number;
	pollMs?: number;
}

/** How often every process looks for a job nobody works on (a new one, or one whose owner died). */
export const GRANT_POLL_MS = 5_000;

/** The claim this process holds on a job: its token (null without leases) and whether it was lost. */
interface JobClaim {
	token: string | null;
	lost: boolean;
}

/** The service's page size limit for conversation lists (docs/contract-gaps.md §4). */
const LIST_PAGE = 200;

/** Answers that hold for every remaining upload of the job: the service has another roster now. */
const STALE_ROSTER_CODES = new Set(['ROSTER_VERSION_CONFLICT', 'AGENT_NOT_IN_ROSTER']);

interface PreparedUpload {
	item: GrantItem;
	request: V1Request<{ conversationId: string; stored: number }>;
}

interface PreparedBatch {
	/** The last conversation id read: the next batch starts after it. */
	last: string;
	prepared: PreparedUpload[];
	operations: Map<string, StoredOperation>;
	/** Conversations already settled while sealing (a wrap that does not open). */
	settled: { conversationId: string; error: string | null }[];
}

export class GrantRunner {
	private readonly runner = coalesce(() => this.runRunningJobs());
	private stopping = false;
	private poll: ReturnType<typeof setInterval> | undefined;
	private readonly concurrency: number;
	private readonly batchSize: number;

	constructor(private readonly options: GrantRunnerOptions) {
		this.concurrency = options.concurrency ?? 16;
		this.batchSize = options.batchSize ?? 256;
	}

	/** Continues the jobs left running (by an earlier run or a process that died), and keeps looking for them. */
	start(): void {
		this.wake();
		this.poll ??= setInterval(() => this.wake(), this.options.pollMs ?? GRANT_POLL_MS);
	}

	wake(): void {
		if (!this.stopping) this.runner.trigger();
	}

	/**
	 * Stops taking new conversations and waits for the uploads in flight; an unfinished job stays running
	 * and its lease is given back, so another process (or the next start) continues it at once.
	 */
	async stop(): Promise<void> {
		this.stopping = true;
		clearInterval(this.poll);
		await this.runner.idle();
	}

	/** Resolves when no job is being worked on (tests and the benchmark). */
	idle(): Promise<void> {
		return this.runner.idle();
	}

	/** Works on every running job this process can claim, one after the other. */
	private async runRunningJobs(): Promise<void> {
		const { db, now, log } = this.options;
		const worked: string[] = [];
		try {
			while (!this.stopping) {
				// One process owns a PGlite database (its directory lock), so only PostgreSQL needs leases.
				const lease = db.kind === 'pglite' ? null : newLease(this.options.leaseMs ?? DEFAULT_LEASE_MS);
				const job = await claimGrantJob(db, lease, new Date(now()), worked);
				if (!job) return;
				worked.push(job.jobId);
				const claim: JobClaim = { token: lease?.token ?? null, lost: false };
				const stopRenewing = lease
					? renewWhileWorking(lease, () => renewGrantLease(db, job.jobId, lease, new Date(now())), {
							onLost: () => (claim.lost = true),
							onError: (error) => log.warn('grant job lease not renewed', { job: job.jobId, reason: errorText(error) })
						})
					: () => {};
				try {
					await this.runJob(job, claim);
				} finally {
					stopRenewing();
					if (lease && this.stopping) await releaseGrantJob(db, job.jobId, lease.token).catch(() => undefined);
				}
			}
		} catch (error) {
			log.warn('grant jobs paused', { reason: errorText(error) });
		}
	}

	private halted(claim: JobClaim): boolean {
		return this.stopping || claim.lost;
	}

	private async runJob(job: GrantJob, claim: JobClaim): Promise<void> {
		const { db, log } = this.options;
		let stoppedBy: string | null = null;
		try {
			let current = job;
			while (!current.listed) {
				if (this.halted(claim)) return;
				current = await this.listPage(current, claim);
			}
			stoppedBy = await this.grantPending(current, claim);
		} catch (error) {
			if (error instanceof LeaseLostError) claim.lost = true;
			else stoppedBy = errorText(error);
		}
		if (claim.lost) {
			log.warn('grant job left to the process that holds it now', { job: job.jobId });
			return;
		}
		if (this.stopping && stoppedBy === null) return;
		const now = new Date(this.options.now());
		const finished = await db.transaction(async (tx) => {
			const latest = await getGrantJob(tx, job.jobId);
			if (!latest || latest.state !== 'running') return latest;
			const failedError = latest.failed > 0 ? `${latest.failed} conversations could not be granted` : null;
			const outcome = stoppedBy ?? failedError;
			const updated = await finishGrantJob(tx, job.jobId, claim.token, { state: outcome ? 'failed' : 'done', lastError: outcome }, now);
			if (updated) await announceGrantProgress(tx, updated, now);
			return updated;
		});
		if (finished) {
			(finished.state === 'done' ? log.info : log.warn)(`grant job ${finished.state}`, {
				job: finished.jobId,
				rosterVersion: finished.rosterVersion,
				done: finished.done,
				failed: finished.failed,
				reason: finished.lastError ?? undefined
			});
		}
	}

	/** One page of the service's conversations into the job's items (pending ones have no K yet). */
	private async listPage(job: GrantJob, claim: JobClaim): Promise<GrantJob> {
		const { value: page } = await this.options.upstream.call(
			v1.listConversations({ limit: LIST_PAGE, cursor: job.listCursor ?? undefined })
		);
		const items = page.data
			.filter((conversation) => conversation.status !== 'pending' && conversation.wrapForCompany !== null)
			.map((conversation) => ({ conversationId: conversation.conversationId, wrapForCompany: conversation.wrapForCompany as Wrap }));
		await addGrantItems(
			this.options.db,
			job.jobId,
			claim.token,
			items,
			{ cursor: page.nextCursor, listed: page.nextCursor === null },
			new Date(this.options.now())
		);
		return (await getGrantJob(this.options.db, job.jobId)) as GrantJob;
	}

	/**
	 * Grants every pending conversation; returns why it stopped early, or null. The next batch is read,
	 * sealed and stored while the current one uploads, so the service is never left waiting on the database.
	 */
	private async grantPending(job: GrantJob, claim: JobClaim): Promise<string | null> {
		const keys = await this.options.companyKeys();
		const keyPairs = [keys.current, ...keys.previous];
		const agents = job.agents.map((agent) => ({ agentKeyId: agent.agentKeyId, publicKey: b64uDecode(agent.publicKey, 'publicKey') }));
		const seal = (item: GrantItem) => this.sealFor(job, item, keyPairs, agents);
		let upcoming = this.prepareBatch(job, '', seal);
		try {
			for (;;) {
				const batch = await upcoming;
				if (!batch || this.halted(claim)) return null;
				upcoming = this.prepareBatch(job, batch.last, seal);
				const stopped = await this.uploadBatch(job, batch, claim);
				if (stopped) return stopped;
			}
		} finally {
			// Nothing of the job may still touch the database once it returns (the server may be closing it).
			await upcoming.catch(() => null);
		}
	}

	private sealFor(
		job: GrantJob,
		item: GrantItem,
		keyPairs: CompanyKeys['previous'],
		agents: { agentKeyId: string; publicKey: Uint8Array }[]
	): PreparedUpload {
		const { conversationId, wrapForCompany } = item;
		const conversationKey = openConversationKey(wrapForCompany, conversationId, keyPairs);
		try {
			const wraps = agents.map((agent) => ({
				agentKeyId: agent.agentKeyId,
				wrap: sealConversationKey({
					conversationKey,
					conversationId,
					keyVersion: wrapForCompany.keyVersion,
					recipientPublicKey: agent.publicKey
				})
			}));
			return { item, request: v1.uploadAgentWraps(conversationId, { rosterVersion: job.rosterVersion, wraps }) };
		} finally {
			conversationKey.fill(0);
		}
	}

	/** The next conversations after `after`, sealed, with their requests stored before any is sent. */
	private async prepareBatch(job: GrantJob, after: string, seal: (item: GrantItem) => PreparedUpload): Promise<PreparedBatch | null> {
		const items = await pendingGrantItems(this.options.db, job.jobId, after, this.batchSize);
		if (items.length === 0) return null;
		const settled: PreparedBatch['settled'] = [];
		const prepared: PreparedUpload[] = [];
		for (const item of items) {
			try {
				prepared.push(seal(item));
			} catch (error) {
				settled.push({ conversationId: item.conversationId, error: `the company wrap does not open: ${errorText(error)}` });
			}
		}
		const operations = await loadOrCreateOperations(
			this.options.db,
			prepared.map(({ item, request }) => ({
				operationKey: grantOperationKey(job.jobId, item.conversationId),
				method: request.method,
				pathAndQuery: request.pathAndQuery,
				body: request.body ?? null
			})),
			new Date(this.options.now())
		);
		return { last: items[items.length - 1].conversationId, prepared, operations, settled };
	}

	/** Uploads a prepared batch with bounded concurrency, then marks it in one transaction. */
	private async uploadBatch(job: GrantJob, batch: PreparedBatch, claim: JobClaim): Promise<string | null> {
		const { db, upstream } = this.options;
		const { prepared, operations, settled } = batch;
		const completed: { operationKey: string; status: number }[] = [];
		const granted: { conversationId: string; agentKeyId: string; rosterVersion: number; wrap: Wrap }[] = [];
		let stoppedBy: string | null = null;
		await pMap(
			prepared,
			async ({ item, request }) => {
				if (stoppedBy !== null || this.halted(claim)) return;
				const operationKey = grantOperationKey(job.jobId, item.conversationId);
				const operation = operations.get(operationKey);
				if (!operation?.body) {
					settled.push({ conversationId: item.conversationId, error: 'the upload could not be stored before sending it' });
					return;
				}
				try {
					const result = await upstream.performStored(operation, request);
					completed.push({ operationKey, status: result.status });
					// What the service stored is the request as first persisted, whatever was sealed this time.
					const sent = parseAgentWrapsUpload(operation.body);
					for (const wrap of sent.wraps) granted.push({ conversationId: item.conversationId, rosterVersion: sent.rosterVersion, ...wrap });
					settled.push({ conversationId: item.conversationId, error: null });
				} catch (error) {
					if (isTransientFailure(error)) {
						stoppedBy = `the service could not take the uploads: ${errorText(error)}`;
					} else if (error instanceof ContractError && STALE_ROSTER_CODES.has(error.code)) {
						stoppedBy = `the service holds another roster now (${error.code}): ${error.message}`;
					} else {
						if (error instanceof ContractError && error.status !== undefined && operationSettled(error.status)) {
							completed.push({ operationKey, status: error.status });
						}
						settled.push({ conversationId: item.conversationId, error: errorText(error) });
					}
				}
			},
			{ concurrency: this.concurrency }
		);
		const now = new Date(this.options.now());
		await db.transaction(async (tx) => {
			await settleGrantItems(tx, job.jobId, claim.token, settled, now);
			await completeOperations(tx, completed, now);
			await storeAgentWrapsOfConversations(tx, granted, now);
			const progress = await getGrantJob(tx, job.jobId);
			if (progress) await announceGrantProgress(tx, progress, now);
		});
		return stoppedBy;
	}
}
