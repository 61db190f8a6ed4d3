import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedRoster } from '$test-support/admin-api';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { recordingLogger } from '$test-support/loggers';
import { startSimCompany } from '$test-support/sim-company';
import type { CompanyCredentials } from '../../../cli/stack/stack';
import type { RunningSimulator } from '../../../sim/server';
import { b64uEncode, ContractError, generateX25519KeyPair, initCrypto, type RosterAgent } from '../../crypto/index';
import { v1 } from '../../wire/v1';
import { acceptRoster, type RosterDeps } from '../admin/roster';
import { createAccount, registerAgentKey, setAccountDisabled, type Account } from '../db/accounts';
import { ensureConversation, getConversationView, getConversationViews } from '../db/conversations';
import type { Database } from '../db/database';
import { storeAgentWraps } from '../db/messages';
import { latestStoredRoster, storeRoster } from '../db/rosters';
import { UpstreamClient } from '../upstream/client';
import { hasConversationAccess, requireConversationAccess, requireRosterAgent } from './access';

const now = new Date('2026-11-24T10:00:00Z');
const wrap = { keyVersion: 1, sealed: 'A'.repeat(120) };

async function agentWithKey(db: Database, name: string, agentKeyId: string, publicKey: string): Promise<Account> {
	const created = await createAccount(db, { username: name, displayName: name, role: 'agent', passwordHash: 'h' }, now);
	return registerAgentKey(db, { accountId: created.accountId, agentKeyId, publicKey, replace: false }, now);
}

describe.each(BACKENDS)('who has access to a conversation on %s (docs/threat-model.md)', (backend) => {
	const databases = useDatabases(backend);

	it('an admin, or an agent of the latest roster with the same key and a wrap of the conversation; nobody else', async () => {
		const db = await databases.open();
		const admin = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, now);
		const ada = await agentWithKey(db, 'ada', 'agk_ada00000', 'PK_ADA');
		const bob = await agentWithKey(db, 'bob', 'agk_bob00000', 'PK_BOB');
		const cy = await agentWithKey(db, 'cy', 'agk_cy000000', 'PK_CY');
		const keyless = await createAccount(db, { username: 'eve', displayName: 'Eve', role: 'agent', passwordHash: 'h' }, now);
		const roster = (version: number, agents: { agentKeyId: string; publicKey: string }[]) =>
			storeRoster(db, {
				rosterVersion: version,
				issuedAt: '2026-11-24T10:00:00Z',
				agents,
				signature: 'S',
				uploadedBy: null,
				uploadedAt: now
			});
		// Bob was in roster 1 and left in roster 2; Cy is in roster 2 under another key than the one registered.
		await roster(1, [
			{ agentKeyId: 'agk_ada00000', publicKey: 'PK_ADA' },
			{ agentKeyId: 'agk_bob00000', publicKey: 'PK_BOB' }
		]);
		await roster(2, [
			{ agentKeyId: 'agk_ada00000', publicKey: 'PK_ADA' },
			{ agentKeyId: 'agk_cy000000', publicKey: 'PK_OTHER' }
		]);
		await storeAgentWraps(
			db,
			'conv_1',
			['agk_ada00000', 'agk_bob00000', 'agk_cy000000'].map((agentKeyId) => ({ agentKeyId, rosterVersion: 1, wrap })),
			now
		);

		const access = async (account: Account, conversationId = 'conv_1') => hasConversationAccess(db, account, conversationId);
		expect(await access(admin)).toBe(true);
		expect(await access(ada)).toBe(true);
		expect(await access(ada, 'conv_other')).toBe(false);
		expect(await access(bob)).toBe(false);
		expect(await access(cy)).toBe(false);
		expect(await access(keyless)).toBe(false);
		const disabled = (await setAccountDisabled(db, ada.accountId, now))!;
		expect(await access(disabled)).toBe(false);

		// asked for every account at once (the live streams' fan-out), the same answers and the same views
		await ensureConversation(db, 'conv_1', 'active', now);
		const everyone = [admin, ada, bob, cy, keyless, disabled];
		const views = await getConversationViews(db, everyone, { viewed: ['conv_1', 'conv_gone'], read: ['conv_1', 'conv_other'] });
		for (const account of everyone) {
			expect(views.covers(account)).toBe(true);
			for (const conversationId of ['conv_1', 'conv_other'])
				expect([account.username, conversationId, views.mayRead(conversationId, account)]).toEqual([
					account.username,
					conversationId,
					await access(account, conversationId)
				]);
			expect(views.viewOf('conv_1', account)).toEqual(await getConversationView(db, account, 'conv_1'));
			expect(views.viewOf('conv_gone', account)).toBeUndefined();
		}
		expect(views.viewOf('conv_1', ada)?.agentWraps).toHaveLength(1);
		// an account asked about under another key is not covered: its key decides what it sees
		expect(views.covers({ ...ada, agentKeyId: 'agk_new00000' })).toBe(false);
	});
});

describe('a newer roster at the service, looked for before refusing an agent (docs/threat-model.md)', () => {
	const databases = useDatabases('PGlite');
	const recorded = recordingLogger();
	let sim: RunningSimulator;
	let company: CompanyCredentials;
	let signingKey: Uint8Array;
	let db: Database;
	let deps: RosterDeps;
	/** The clock the looks are spaced by: each step below starts well after the interval of the one before. */
	let clock = Date.parse('2026-11-24T10:00:00Z');
	/** The agents of the latest roster the service holds. */
	const listed: RosterAgent[] = [];
	let served = 0;

	/** An agent account with a key of its own, in no roster yet. */
	async function agent(name: string): Promise<{ account: Account; entry: RosterAgent }> {
		const entry = {
			agentKeyId: `agk_${b64uEncode(generateX25519KeyPair().publicKey).slice(0, 10)}`,
			publicKey: b64uEncode(generateX25519KeyPair().publicKey)
		};
		const created = await createAccount(db, { username: name, displayName: name, role: 'agent', passwordHash: 'h' }, new Date(clock));
		const account = await registerAgentKey(db, { accountId: created.accountId, ...entry, replace: false }, new Date(clock));
		return { account, entry };
	}

	/** Another tool uploads the service's next roster with these agents added; the inbox is not told. */
	async function publish(...added: RosterAgent[]): Promise<number> {
		listed.push(...added);
		served++;
		const roster = signedRoster(company.companyId, served, listed, signingKey);
		await deps.upstream.call(v1.uploadRoster(roster), { idempotencyKey: `roster-${served}` });
		return served;
	}

	const stored = async () => (await latestStoredRoster(db))?.rosterVersion;
	const later = () => (clock += 10_000);

	beforeAll(async () => {
		await initCrypto();
		({ sim, company, signingKey } = await startSimCompany());
		db = await databases.open();
		deps = {
			config: { serviceCompanyId: company.companyId },
			db,
			log: recorded.log,
			upstream: new UpstreamClient({ baseUrl: sim.url, apiKey: company.apiKey, signingSecret: company.webhookSecret, db }),
			now: () => clock,
			companyKeys: async () => ({ signingPublicKey: signingKey.subarray(32) }),
			grants: { wake() {} }
		} as unknown as RosterDeps;
		const admin = await createAccount(db, { username: 'grace', displayName: 'Grace', role: 'admin', passwordHash: 'h' }, new Date(clock));
		const ada = await agent('ada');
		listed.push(ada.entry);
		served = 1;
		await acceptRoster(deps, admin, signedRoster(company.companyId, 1, listed, signingKey));
	}, 60_000);
	afterAll(() => sim?.close());

	it('lets in an agent the newer roster holds, and keeps that roster', async () => {
		const bob = await agent('bob');
		const version = await publish(bob.entry);
		later();
		await expect(requireRosterAgent(deps, bob.account)).resolves.toBeUndefined();
		expect(await stored()).toBe(version);
	});

	it('looks at most once per interval, whoever is refused meanwhile', async () => {
		const cy = await agent('cy');
		const looked = later();
		await expect(requireRosterAgent(deps, cy.account)).rejects.toMatchObject({ code: 'NOT_IN_ROSTER' });
		const version = await publish(cy.entry);
		clock = looked + 1_999;
		await expect(requireRosterAgent(deps, cy.account)).rejects.toMatchObject({
			code: 'NOT_IN_ROSTER',
			message: 'only an admin or an agent of the latest signed roster may do this'
		});
		expect(await stored()).toBe(version - 1);
		clock = looked + 2_000;
		await expect(requireRosterAgent(deps, cy.account)).resolves.toBeUndefined();
		expect(await stored()).toBe(version);
	});

	it('does not look for an account no roster can let in, so the next agent refused still gets the look', async () => {
		const keyless = await createAccount(db, { username: 'eve', displayName: 'Eve', role: 'agent', passwordHash: 'h' }, new Date(clock));
		const left = await agent('left');
		const disabled = (await setAccountDisabled(db, left.account.accountId, new Date(clock)))!;
		const dan = await agent('dan');
		later();
		await expect(requireRosterAgent(deps, keyless)).rejects.toMatchObject({ code: 'NOT_IN_ROSTER' });
		await expect(requireRosterAgent(deps, disabled)).rejects.toMatchObject({ code: 'NOT_IN_ROSTER' });
		await publish(dan.entry, left.entry);
		await expect(requireRosterAgent(deps, dan.account)).resolves.toBeUndefined();
		// the roster that lets Dan in holds the disabled account's key too: it stays refused
		await expect(requireRosterAgent(deps, disabled)).rejects.toMatchObject({ code: 'NOT_IN_ROSTER' });
	});

	it('still refuses an agent the newer roster leaves out', async () => {
		const outsider = await agent('outsider');
		const version = await publish((await agent('someone')).entry);
		later();
		await expect(requireRosterAgent(deps, outsider.account)).rejects.toMatchObject({ code: 'NOT_IN_ROSTER' });
		expect(await stored()).toBe(version);
	});

	it('for a conversation: lets in an agent the newer roster holds, still refuses one it leaves out', async () => {
		const frank = await agent('frank');
		const gil = await agent('gil');
		await ensureConversation(db, 'conv_wrapped', 'active', new Date(clock));
		const wrap = { keyVersion: 1, sealed: 'A'.repeat(120) };
		await storeAgentWraps(
			db,
			'conv_wrapped',
			[frank, gil].map(({ entry }) => ({ agentKeyId: entry.agentKeyId, rosterVersion: served, wrap })),
			new Date(clock)
		);
		await publish(frank.entry);
		later();
		await expect(requireConversationAccess(deps, frank.account, 'conv_wrapped')).resolves.toBeUndefined();
		const version = await publish((await agent('someone else')).entry);
		later();
		await expect(requireConversationAccess(deps, gil.account, 'conv_wrapped')).rejects.toMatchObject({
			code: 'NO_CONVERSATION_ACCESS',
			message: 'only an admin or an agent of the latest roster who holds this conversation’s key may do this'
		});
		expect(await stored()).toBe(version);
		await expect(requireConversationAccess(deps, frank.account, 'conv_none')).rejects.toMatchObject({
			code: 'NOT_FOUND',
			message: 'no conversation conv_none'
		});
	});

	it('refuses as before when the service cannot answer, and says why in the log', async () => {
		const hal = await agent('hal');
		const unavailable = new ContractError('UPSTREAM_UNAVAILABLE', 'the service answered 503');
		const cut = { ...deps, upstream: { call: () => Promise.reject(unavailable) } } as unknown as RosterDeps;
		later();
		await expect(requireRosterAgent(cut, hal.account)).rejects.toMatchObject({ code: 'NOT_IN_ROSTER' });
		expect(recorded.lines).toContainEqual({
			level: 'warn',
			message: 'could not look for a newer roster at the service',
			fields: { reason: expect.stringContaining('the service answered 503') }
		});
	});
});
