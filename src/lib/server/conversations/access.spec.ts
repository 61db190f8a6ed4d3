import { describe, expect, it } from 'vitest';
import { BACKENDS, useDatabases } from '$test-support/databases';
import { createAccount, registerAgentKey, setAccountDisabled, type Account } from '../db/accounts';
import type { Database } from '../db/database';
import { storeAgentWraps } from '../db/messages';
import { storeRoster } from '../db/rosters';
import { hasConversationAccess } from './access';

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
	});
});
