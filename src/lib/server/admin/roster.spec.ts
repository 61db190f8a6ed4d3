import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedRoster } from '$test-support/admin-api';
import { simControl } from '$test-support/customer';
import { useDatabases } from '$test-support/databases';
import { startSimCompany } from '$test-support/sim-company';
import type { CompanyCredentials } from '../../../cli/stack/stack';
import type { RunningSimulator } from '../../../sim/server';
import { b64uEncode, ContractError, generateEd25519KeyPair, generateX25519KeyPair, initCrypto } from '../../crypto/index';
import { v1 } from '../../wire/v1';
import { createAccount, type Account } from '../db/accounts';
import { listAuditEntries } from '../db/audit';
import type { Database } from '../db/database';
import { finishGrantJob, listGrantJobs } from '../db/grant-jobs';
import { listRosters } from '../db/rosters';
import type { Inbox } from '../inbox';
import type { Logger } from '../log';
import { UpstreamClient } from '../upstream/client';
import { acceptRoster, nextRosterAgents, readRosterBody, readRosters, rosterOverview, rosterView } from './roster';

const body = () => ({
	rosterVersion: 3,
	issuedAt: '2026-11-22T10:00:00Z',
	agents: [{ agentKeyId: 'agk_aaaaaaaa', publicKey: 'PK_A' }],
	signature: 'SIG'
});

function account(accountId: string, fields: Partial<Account> = {}): Account {
	return {
		accountId,
		username: accountId,
		displayName: `Name of ${accountId}`,
		role: 'agent',
		agentKeyId: null,
		agentPublicKey: null,
		createdAt: new Date(0),
		roleSince: new Date(0),
		roleGrantedBy: null,
		disabledAt: null,
		...fields
	};
}

describe('the roster an admin uploads (contract 2.9, 6.7; docs/contract-gaps.md)', () => {
	it('keeps exactly the roster’s fields', () => {
		expect(readRosterBody(body())).toEqual(body());
	});

	it('refuses unknown or missing fields, agents that are not a list of objects, naming where', () => {
		const cases: [Record<string, unknown>, string][] = [
			[{ ...body(), companyId: 'cmp_x', extra: 1 }, 'the roster has fields the roster does not know: companyId, extra'],
			[{ ...body(), signature: undefined }, 'signature is required'],
			[{ ...body(), rosterVersion: undefined }, 'rosterVersion is required'],
			[{ ...body(), agents: 'agk_aaaaaaaa' }, 'agents must be a list'],
			[{ ...body(), agents: [{ agentKeyId: 'agk_a', publicKey: 'P' }, null] }, 'agents[1] must be an object'],
			[{ ...body(), agents: [['agk_a', 'P']] }, 'agents[0] must be an object'],
			[{ ...body(), agents: ['agk_a'] }, 'agents[0] must be an object'],
			[
				{ ...body(), agents: [{ agentKeyId: 'agk_a', publicKey: 'P', role: 'admin' }] },
				'agents[0] has fields the roster does not know: role'
			]
		];
		for (const [value, message] of cases) {
			expect(() => readRosterBody(value), message).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', status: 400, message }));
		}
	});
});

describe('roster views', () => {
	it('name each listed key’s account only when both its id and its public key match', () => {
		const roster = {
			rosterVersion: 2,
			issuedAt: '2026-11-22T10:00:00Z',
			agents: [
				{ agentKeyId: 'agk_aaaaaaaa', publicKey: 'PK_A' },
				{ agentKeyId: 'agk_bbbbbbbb', publicKey: 'PK_OLD' },
				{ agentKeyId: 'agk_cccccccc', publicKey: 'PK_C' }
			],
			signature: 'SIG',
			uploadedBy: 'acc_admin',
			uploadedAt: new Date('2026-11-22T10:00:01.500Z')
		};
		const accounts = [
			account('acc_a', { agentKeyId: 'agk_aaaaaaaa', agentPublicKey: 'PK_A' }),
			account('acc_b', { agentKeyId: 'agk_bbbbbbbb', agentPublicKey: 'PK_NEW' }),
			account('acc_nokey'),
			account('acc_admin')
		];
		expect(rosterView(roster, accounts)).toEqual({
			rosterVersion: 2,
			issuedAt: '2026-11-22T10:00:00Z',
			agents: [
				{ agentKeyId: 'agk_aaaaaaaa', publicKey: 'PK_A', accountId: 'acc_a', displayName: 'Name of acc_a' },
				{ agentKeyId: 'agk_bbbbbbbb', publicKey: 'PK_OLD', accountId: null, displayName: null },
				{ agentKeyId: 'agk_cccccccc', publicKey: 'PK_C', accountId: null, displayName: null }
			],
			signature: 'SIG',
			uploadedAt: '2026-11-22T10:00:01Z',
			uploadedBy: 'acc_admin',
			uploadedByName: 'Name of acc_admin'
		});
	});

	it('the next roster holds the active agents with a key, in byte order of their key ids', () => {
		const accounts = [
			account('acc_b', { agentKeyId: 'agk_bbbbbbbb', agentPublicKey: 'PK_B' }),
			account('acc_upper', { agentKeyId: 'agk_Zzzzzzzz', agentPublicKey: 'PK_Z' }),
			account('acc_a', { agentKeyId: 'agk_aaaaaaaa', agentPublicKey: 'PK_A' }),
			account('acc_disabled', { agentKeyId: 'agk_dddddddd', agentPublicKey: 'PK_D', disabledAt: new Date(1) }),
			account('acc_nokey'),
			account('acc_idonly', { agentKeyId: 'agk_eeeeeeee' }),
			account('acc_admin', { role: 'admin', agentKeyId: 'agk_cccccccc', agentPublicKey: 'PK_C' })
		];
		expect(nextRosterAgents(accounts)).toEqual([
			{ agentKeyId: 'agk_Zzzzzzzz', publicKey: 'PK_Z', accountId: 'acc_upper', displayName: 'Name of acc_upper' },
			{ agentKeyId: 'agk_aaaaaaaa', publicKey: 'PK_A', accountId: 'acc_a', displayName: 'Name of acc_a' },
			{ agentKeyId: 'agk_bbbbbbbb', publicKey: 'PK_B', accountId: 'acc_b', displayName: 'Name of acc_b' },
			{ agentKeyId: 'agk_cccccccc', publicKey: 'PK_C', accountId: 'acc_admin', displayName: 'Name of acc_admin' }
		]);
		expect(nextRosterAgents([...accounts].reverse())).toEqual(nextRosterAgents(accounts));
	});
});

describe('rosters checked against signing.pub and the service (contract 2.9, 6.7)', () => {
	const databases = useDatabases('PGlite');
	let sim: RunningSimulator;
	let company: CompanyCredentials;
	let signingKey: Uint8Array;
	let db: Database;
	let inbox: Inbox;
	let admin: Account;
	let grantWakes = 0;
	const warnings: string[] = [];

	beforeAll(async () => {
		await initCrypto();
		({ sim, company, signingKey } = await startSimCompany());
		db = await databases.open();
		const log: Logger = { info() {}, warn: (message) => warnings.push(message), error() {} };
		const upstream = new UpstreamClient({ baseUrl: sim.url, apiKey: company.apiKey, signingSecret: company.webhookSecret, db });
		inbox = {
			config: { serviceCompanyId: company.companyId },
			db,
			log,
			upstream,
			now: Date.now,
			companyKeys: async () => ({ signingPublicKey: signingKey.subarray(32) }),
			grants: { wake: () => grantWakes++ }
		} as unknown as Inbox;
		admin = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, new Date());
	}, 60_000);
	afterAll(() => sim?.close());

	const rosterAgent = () => ({
		agentKeyId: `agk_${b64uEncode(generateX25519KeyPair().publicKey).slice(0, 10)}`,
		publicKey: b64uEncode(generateX25519KeyPair().publicKey)
	});
	const served = async () => (await inbox.upstream.call(v1.getRoster())).value;

	it('uploads a roster that verifies, keeps it, audits it and starts a grant job for its agents', async () => {
		expect(await readRosters(inbox)).toEqual({ latest: null, unverified: null });
		const agents = [rosterAgent(), rosterAgent()];
		const accepted = await acceptRoster(inbox, admin, signedRoster(company.companyId, 1, agents, signingKey));
		expect(accepted.roster).toMatchObject({ rosterVersion: 1, uploadedBy: admin.accountId });
		expect(accepted.grantJob).toMatchObject({ rosterVersion: 1 });
		expect(grantWakes).toBe(1);
		expect((await served()).rosterVersion).toBe(1);
		expect((await listRosters(db)).map((roster) => roster.rosterVersion)).toEqual([1]);
		const [audit] = await listAuditEntries(db, { limit: 10 });
		expect(audit).toMatchObject({ action: 'roster.uploaded', target: 'v1', details: { agents: 2, grantedAgents: 2 } });
	});

	it('refuses any version but the latest + 1, and a roster signed with another key, before the service sees it', async () => {
		const agents = [rosterAgent()];
		for (const version of [1, 3]) {
			await expect(acceptRoster(inbox, admin, signedRoster(company.companyId, version, agents, signingKey))).rejects.toMatchObject({
				code: 'ROSTER_VERSION_CONFLICT',
				status: 409,
				message: `rosterVersion must be 2 (the latest accepted + 1), got ${version}`
			});
		}
		const forged = signedRoster(company.companyId, 2, agents, generateEd25519KeyPair().secretKey);
		await expect(acceptRoster(inbox, admin, forged)).rejects.toMatchObject({ code: 'SIGNATURE_INVALID' });
		const otherCompany = signedRoster('cmp_someone_else', 2, agents, signingKey);
		await expect(acceptRoster(inbox, admin, otherCompany)).rejects.toMatchObject({ code: 'SIGNATURE_INVALID' });
		expect((await served()).rosterVersion).toBe(1);
		expect(grantWakes).toBe(1);
	});

	it('a roster the service serves that does not verify is reported, never kept nor made the latest', async () => {
		const forged = signedRoster(company.companyId, 7, [rosterAgent()], generateEd25519KeyPair().secretKey);
		await simControl(sim.url).control('POST', `/_sim/companies/${company.companyId}/served-roster`, forged);
		try {
			const read = await readRosters(inbox);
			expect(read.latest?.rosterVersion).toBe(1);
			expect(read.unverified).toEqual({ rosterVersion: 7, reason: 'SIGNATURE_INVALID: the signature does not verify' });
			expect(warnings).toContain('the service holds a roster that does not verify with signing.pub; it is not kept');
			expect((await listRosters(db)).map((roster) => roster.rosterVersion)).toEqual([1]);
			expect((await rosterOverview(inbox)).unverifiedAtService).toMatchObject({ rosterVersion: 7 });
		} finally {
			await simControl(sim.url).control('DELETE', `/_sim/companies/${company.companyId}/served-roster`);
		}
	});

	it('a newer roster uploaded by another tool is kept when it verifies, and grants the agents it adds or an unfinished job left unserved', async () => {
		const kept = (await readRosters(inbox)).latest!;
		const added = rosterAgent();
		const next = signedRoster(company.companyId, 2, [...kept.agents, added], signingKey);
		await inbox.upstream.call(v1.uploadRoster(next), { idempotencyKey: 'roster-by-another-tool' });
		const read = await readRosters(inbox);
		expect([read.latest?.rosterVersion, read.latest?.uploadedBy, read.unverified]).toEqual([2, null, null]);
		expect((await listRosters(db)).map((roster) => roster.rosterVersion)).toEqual([2, 1]);
		// the added agent, and those the first roster's job had not served yet (that job stops)
		const [newest, first] = await listGrantJobs(db);
		const sortById = (agents: { agentKeyId: string }[]) => [...agents].sort((a, b) => (a.agentKeyId < b.agentKeyId ? -1 : 1));
		expect(newest.rosterVersion).toBe(2);
		expect(sortById(newest.agents)).toEqual(sortById([...kept.agents, added]));
		expect(first).toMatchObject({ rosterVersion: 1, state: 'failed', lastError: 'superseded by roster 2' });
		expect(grantWakes).toBe(2);
		// read again: nothing new is kept or granted
		await readRosters(inbox);
		expect((await listGrantJobs(db)).length).toBe(2);
	});

	it('grants only the agents a roster adds once the earlier jobs are done, and wakes the grants only for a job', async () => {
		const finishAll = async () => {
			for (const job of await listGrantJobs(db))
				if (job.state === 'running') await finishGrantJob(db, job.jobId, null, { state: 'done', lastError: null }, new Date());
		};
		await finishAll();
		const kept = (await readRosters(inbox)).latest!;
		const added = rosterAgent();
		const wakes = grantWakes;
		const accepted = await acceptRoster(inbox, admin, signedRoster(company.companyId, 3, [...kept.agents, added], signingKey));
		expect(accepted.grantJob?.agentKeyIds).toEqual([added.agentKeyId]);
		expect(grantWakes).toBe(wakes + 1);
		expect((await served()).rosterVersion).toBe(3);

		await finishAll();
		const fewer = await acceptRoster(inbox, admin, signedRoster(company.companyId, 4, kept.agents, signingKey));
		expect(fewer.grantJob).toBeNull();
		expect(grantWakes).toBe(wakes + 1);
		expect((await served()).rosterVersion).toBe(4);
	});

	it('a service that cannot answer is not taken for one without a roster: the overview shows the stored ones', async () => {
		const unavailable = new ContractError('UPSTREAM_UNAVAILABLE', 'the service answered 503');
		const cut = { ...inbox, upstream: { call: () => Promise.reject(unavailable) } } as unknown as Inbox;
		await expect(readRosters(cut)).rejects.toBe(unavailable);
		expect(warnings).not.toContain('the service roster could not be read; showing the stored ones');
		const overview = await rosterOverview(cut);
		expect([overview.latest?.rosterVersion, overview.next.rosterVersion]).toEqual([4, 5]);
		expect(warnings).toContain('the service roster could not be read; showing the stored ones');
	});
});
