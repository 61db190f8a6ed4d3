/**
 * Rosters from the admin's page (contract 2.9, 6.7; docs/inbox-api.md "Administration"): the server
 * is the only path to `POST /v1/roster`, so it always checks a roster first (exact fields, ids,
 * duplicates, at most 1000 agents, the exact `issuedAt`, the signature with `signing.pub`, the version:
 * latest accepted + 1, or above it while the service serves a roster that does not verify), then
 * uploads it, keeps it, and starts a grant job for the agents it adds.
 */
import { ContractError, validateRoster, verifyRoster, type RosterAgent } from '../../crypto/index';
import { v1 } from '../../wire/v1';
import { listAccounts, type Account } from '../db/accounts';
import { isoSeconds } from '../../crypto/rules';
import { createGrantJob, newGrantJobId, supersedeGrantJobs, unfinishedGrantJobs, type GrantJob } from '../db/grant-jobs';
import { latestStoredRoster, listRosters, storeRoster, type StoredRoster } from '../db/rosters';
import type { ServiceDeps } from '../deps';
import type { GrantRunner } from './grants';
import { recordAudit } from '../audit/record';
import { errorText } from '../log';
import { companyIdOf, type WithCompanyConfig } from './company';
import { announceGrantProgress, grantJobView } from './grants';
import type {
	AcceptedRoster,
	RosterEntry,
	RosterOverview,
	RosterView,
	SignedRosterUpload,
	UnverifiedServiceRoster
} from '../../inbox-api/roster';

/** What the roster flows need: the service, the keys, the company's id, and the grant runner to wake. */
export type RosterDeps = ServiceDeps & WithCompanyConfig & { readonly grants: Pick<GrantRunner, 'wake'> };

const ROSTER_FIELDS = ['rosterVersion', 'issuedAt', 'agents', 'signature'];
const AGENT_FIELDS = ['agentKeyId', 'publicKey'];

function refuseUnknownFields(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
	const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
	if (unknown.length) throw new ContractError('INVALID_REQUEST', `${where} has fields the roster does not know: ${unknown.join(', ')}`);
}

/** The body of `POST /api/admin/roster`, with exactly the roster's fields (contract 2.9, contract-gaps §7). */
export function readRosterBody(body: Record<string, unknown>): SignedRosterUpload {
	refuseUnknownFields(body, ROSTER_FIELDS, 'the roster');
	for (const field of ROSTER_FIELDS) if (body[field] === undefined) throw new ContractError('INVALID_REQUEST', `${field} is required`);
	if (!Array.isArray(body.agents)) throw new ContractError('INVALID_REQUEST', 'agents must be a list');
	for (const [index, agent] of body.agents.entries()) {
		if (typeof agent !== 'object' || agent === null || Array.isArray(agent))
			throw new ContractError('INVALID_REQUEST', `agents[${index}] must be an object`);
		refuseUnknownFields(agent as Record<string, unknown>, AGENT_FIELDS, `agents[${index}]`);
	}
	return {
		rosterVersion: body.rosterVersion as number,
		issuedAt: body.issuedAt as string,
		agents: body.agents as RosterAgent[],
		signature: body.signature as string
	};
}

const agentKey = (agent: RosterAgent) => `${agent.agentKeyId}:${agent.publicKey}`;

export function rosterView(roster: StoredRoster, accounts: readonly Account[]): RosterView {
	const byKey = new Map(
		// Stryker disable next-line MethodExpression: equivalent: an account without a key maps to "null:…", which no valid roster agent is
		accounts.filter((account) => account.agentKeyId).map((account) => [`${account.agentKeyId}:${account.agentPublicKey}`, account])
	);
	return {
		rosterVersion: roster.rosterVersion,
		issuedAt: roster.issuedAt,
		agents: roster.agents.map((agent) => {
			const account = byKey.get(agentKey(agent));
			return { ...agent, accountId: account?.accountId ?? null, displayName: account?.displayName ?? null };
		}),
		signature: roster.signature,
		uploadedAt: isoSeconds(roster.uploadedAt),
		uploadedBy: roster.uploadedBy,
		uploadedByName: accounts.find((account) => account.accountId === roster.uploadedBy)?.displayName ?? null
	};
}

/**
 * The latest roster accepted: the inbox's own, or a newer one found at the service (uploaded by another
 * tool, e.g. the demo launcher, or by this inbox just before a crash), which is kept, and grants the
 * agents it adds, when it verifies with `signing.pub`. One that does not verify never becomes the latest
 * (a hostile service could otherwise add readers); it is returned as `unverified` for the admins' alert
 * and for the versions an upload may take (`checkRosterVersion`).
 */
export async function readRosters(deps: RosterDeps): Promise<{ latest: StoredRoster | null; unverified: UnverifiedServiceRoster | null }> {
	const stored = await latestStoredRoster(deps.db);
	let remote;
	try {
		remote = (await deps.upstream.call(v1.getRoster())).value;
	} catch (error) {
		if (error instanceof ContractError && error.code === 'NOT_FOUND') return { latest: stored, unverified: null };
		throw error;
	}
	const found: StoredRoster = { ...remote, uploadedBy: null, uploadedAt: new Date(deps.now()) };
	try {
		const signed = { companyId: await companyIdOf(deps), ...remote };
		verifyRoster(signed, (await deps.companyKeys()).signingPublicKey);
		found.agents = validateRoster(signed).agents as RosterAgent[];
	} catch (error) {
		deps.log.warn('the service holds a roster that does not verify with signing.pub; it is not kept', {
			rosterVersion: remote.rosterVersion,
			reason: errorText(error)
		});
		return { latest: stored, unverified: { rosterVersion: remote.rosterVersion, reason: errorText(error).slice(0, 300) } };
	}
	if (stored && remote.rosterVersion <= stored.rosterVersion) return { latest: stored, unverified: null };
	await recordAcceptedRoster(deps, found, stored);
	return { latest: found, unverified: null };
}

export async function latestAcceptedRoster(deps: RosterDeps): Promise<StoredRoster | null> {
	return (await readRosters(deps)).latest;
}

/**
 * The version the page proposes for the next roster: the latest accepted + 1, or, when the service
 * serves a later roster that does not verify, that one's + 1, which is what the service takes if it
 * really holds it (contract 2.9: each roster is the previous + 1 at the service).
 */
function nextRosterVersion(latest: StoredRoster | null, unverified: UnverifiedServiceRoster | null): number {
	return Math.max(latest?.rosterVersion ?? 0, unverified?.rosterVersion ?? 0) + 1;
}

/**
 * Refuses an upload's version before the service sees it. While the service serves what verifies (or
 * nothing), exactly the latest accepted + 1. While it serves a roster that does not verify, the inbox
 * cannot know the service's previous version (a broken service, a database restored behind the service,
 * or a lie): any version above the latest verified is taken and the service keeps its own + 1; demanding
 * the latest + 1 here would leave no version both accept.
 */
function checkRosterVersion(version: number, latest: StoredRoster | null, unverified: UnverifiedServiceRoster | null): void {
	const floor = latest?.rosterVersion ?? 0;
	if (unverified && version <= floor) {
		throw new ContractError(
			'ROSTER_VERSION_CONFLICT',
			`rosterVersion must be above ${floor} (the latest verified; the service holds version ${unverified.rosterVersion}, which does not verify), got ${version}`
		);
	}
	if (!unverified && version !== floor + 1)
		throw new ContractError('ROSTER_VERSION_CONFLICT', `rosterVersion must be ${floor + 1} (the latest accepted + 1), got ${version}`);
}

/** Byte order of agent key ids (ASCII, so UTF-16 code units order them the same). */
// Stryker disable next-line all: equivalent: V8's sort only asks whether the answer is below 0, and agent key ids are unique
const byAgentKeyId = (a: RosterEntry, b: RosterEntry) => (a.agentKeyId < b.agentKeyId ? -1 : a.agentKeyId > b.agentKeyId ? 1 : 0);

/** Active agents with a key, not disabled, sorted by agentKeyId bytes: what the next roster would hold. */
export function nextRosterAgents(accounts: readonly Account[]): RosterEntry[] {
	return accounts
		.filter((account) => account.agentKeyId && account.agentPublicKey && !account.disabledAt)
		.map((account) => ({
			agentKeyId: account.agentKeyId as string,
			publicKey: account.agentPublicKey as string,
			accountId: account.accountId,
			displayName: account.displayName
		}))
		.sort(byAgentKeyId);
}

export async function rosterOverview(deps: RosterDeps): Promise<RosterOverview> {
	const { latest, unverified } = await readRosters(deps).catch(async (error) => {
		deps.log.warn('the service roster could not be read; showing the stored ones', { reason: errorText(error) });
		return { latest: await latestStoredRoster(deps.db), unverified: null };
	});
	const accounts = await listAccounts(deps.db);
	const history = await listRosters(deps.db);
	return {
		latest: latest ? rosterView(latest, accounts) : null,
		unverifiedAtService: unverified,
		history: history.map((roster) => rosterView(roster, accounts)),
		next: {
			rosterVersion: nextRosterVersion(latest, unverified),
			companyId: await companyIdOf(deps),
			agents: nextRosterAgents(accounts)
		}
	};
}

/**
 * Keeps a roster the service accepted and starts the grant job for the agents it adds to `previous`,
 * and for those still in it that an unfinished job of an older roster had not served (that job stops).
 * Nothing happens when the version was kept already (another request recorded it first).
 */
async function recordAcceptedRoster(deps: RosterDeps, roster: StoredRoster, previous: StoredRoster | null): Promise<GrantJob | null> {
	const now = new Date(deps.now());
	const before = new Set((previous?.agents ?? []).map(agentKey));
	const job = await deps.db.transaction(async (tx) => {
		if (!(await storeRoster(tx, roster))) return null;
		const unfinished = new Set((await unfinishedGrantJobs(tx, roster.rosterVersion)).flatMap((old) => old.agents.map(agentKey)));
		const granted = roster.agents.filter((agent) => !before.has(agentKey(agent)) || unfinished.has(agentKey(agent)));
		const created: GrantJob | null = granted.length
			? await createGrantJob(tx, { jobId: newGrantJobId(), rosterVersion: roster.rosterVersion, agents: granted }, now)
			: null;
		for (const old of await supersedeGrantJobs(tx, roster.rosterVersion, created?.jobId ?? null, now))
			await announceGrantProgress(tx, old, now);
		if (created) await announceGrantProgress(tx, created, now);
		return created;
	});
	if (job) deps.grants.wake();
	return job;
}

/**
 * Checks, uploads and keeps a roster signed in the admin's page, then starts the grant job for its new
 * agents and for the agents still in it that an unfinished earlier job had not served yet.
 */
export async function acceptRoster(deps: RosterDeps, admin: Account, body: Record<string, unknown>): Promise<AcceptedRoster> {
	const input = readRosterBody(body);
	const companyId = await companyIdOf(deps);
	const signed = { companyId, ...input };
	const agents = validateRoster(signed).agents as RosterAgent[];
	verifyRoster(signed, (await deps.companyKeys()).signingPublicKey);
	const { latest: previous, unverified } = await readRosters(deps);
	checkRosterVersion(input.rosterVersion, previous, unverified);
	const record = { rosterVersion: input.rosterVersion, issuedAt: input.issuedAt, agents, signature: input.signature };
	await deps.upstream.perform(`roster:${record.rosterVersion}:${record.signature}`, v1.uploadRoster(record));

	const roster: StoredRoster = { ...record, uploadedBy: admin.accountId, uploadedAt: new Date(deps.now()) };
	const job = await recordAcceptedRoster(deps, roster, previous);
	await recordAudit(
		deps.db,
		{
			actor: admin,
			action: 'roster.uploaded',
			target: `v${roster.rosterVersion}`,
			details: { agents: agents.length, grantJob: job?.jobId ?? null, grantedAgents: job?.agents.length ?? 0 }
		},
		new Date(deps.now())
	);
	deps.log.info('roster accepted', {
		rosterVersion: roster.rosterVersion,
		agents: agents.length,
		by: admin.accountId,
		grantJob: job?.jobId
	});
	return { roster: rosterView(roster, await listAccounts(deps.db)), grantJob: job ? grantJobView(job) : null };
}
